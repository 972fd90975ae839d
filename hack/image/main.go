// Command image builds the ogx-controller OCI image without a container
// engine and writes it as an OCI image layout (`make image`), or pushes such
// a layout to a registry (`make image-push`). See docs/operations.md,
// Building the image.
//
//	image build -root ../.. -out ../../_output/image -ref ghcr.io/ogx-k8s/ogx-controller:v0.1.0 \
//	  -version 0.1.0 -binary-version v0.1.0 -revision abcdef...
//	image push -layout ../../_output/image [-image registry.example.com/ogx-controller:v0.1.0]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/ogx-k8s/ogx-controller/hack/image/imagebuild"
)

const usage = "usage: image build|push [flags] (image build -h lists the flags)"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "build":
		return build(ctx, args[1:])
	case "push":
		return push(ctx, args[1:])
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func build(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var o imagebuild.Options
	fs.StringVar(&o.Root, "root", "../..", "the repository root")
	fs.StringVar(&o.Version, "version", "", "the release (org.opencontainers.image.version)")
	fs.StringVar(&o.BinaryVersion, "binary-version", "dev", "what the binary's --version prints")
	fs.StringVar(&o.Revision, "revision", "", "the source commit (org.opencontainers.image.revision)")
	fs.StringVar(&o.Go, "go", "go", "the go command")
	out := fs.String("out", "", "the OCI layout directory to (re)create")
	ref := fs.String("ref", "", "the image reference recorded in the layout ("+imagebuild.RefNameAnnotation+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *ref == "" || o.Version == "" {
		return errors.New("build: -out, -ref and -version are required")
	}
	created, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	o.Created = created
	idx, err := imagebuild.Build(ctx, o)
	if err != nil {
		return err
	}
	if err := imagebuild.WriteLayout(*out, idx, *ref); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s@%s\n", *out, *ref, d)
	return nil
}

// sourceDateEpoch is the image's timestamp: $SOURCE_DATE_EPOCH (the
// Makefile sets the last commit's time), else the Unix epoch.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %w", v, err)
	}
	return time.Unix(s, 0).UTC(), nil
}

func push(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "", "the OCI layout make image wrote")
	image := fs.String("image", "", "where to push; empty: the reference the layout records")
	if err := fs.Parse(args); err != nil {
		return err
	}
	idx, ref, err := imagebuild.ReadLayout(*dir)
	if err != nil {
		return err
	}
	if *image != "" {
		ref = *image
	}
	if ref == "" {
		return fmt.Errorf("push: the layout %s names no image: pass -image", *dir)
	}
	r, err := imagebuild.Push(ctx, idx, ref, remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("pushed %s@%s\n", r, d)
	return nil
}
