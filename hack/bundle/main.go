// Command bundle writes the Operator Lifecycle Manager bundle of
// ogx-controller into bundle/ (`make bundle`): the ClusterServiceVersion, the
// owned CRDs, the extra objects OLM installs next to the operator, and
// metadata/annotations.yaml. bundle.Dockerfile at the repository root
// packages the directory as a bundle image.
//
// It reads the rendered install, release/ogx-controller.yaml, rather than
// config/ directly, so the bundle runs exactly the Deployment, RBAC and
// webhook that the plain install does, with the differences OLM requires
// (the webhook certificate and the watched namespaces are OLM's: see
// forOLM) and nothing else. `make verify` regenerates the bundle into a
// temporary directory and fails when bundle/ differs; test/bundle checks it
// with OLM's own validation library.
//
//	bundle -release release/ogx-controller.yaml -crds config/crd/bases \
//	  -samples config/samples -changelog CHANGELOG.md -version 0.1.0 -out bundle
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	var o options
	flag.StringVar(&o.release, "release", "release/ogx-controller.yaml", "the rendered install (make release)")
	flag.StringVar(&o.crds, "crds", "config/crd/bases", "directory of the generated CRDs (for the legacy LlamaStackDistribution)")
	flag.StringVar(&o.samples, "samples", "config/samples", "directory of the example OGXServers (alm-examples)")
	flag.StringVar(&o.version, "version", "0.1.0", "the bundle's semantic version (the CSV is ogx-controller.v<version>)")
	flag.StringVar(&o.changelog, "changelog", "CHANGELOG.md", "the release history; its headings give the upgrade graph (spec.replaces, olm.skipRange)")
	flag.StringVar(&o.channel, "channel", "alpha", "the OLM channel the bundle is published to")
	out := flag.String("out", "bundle", "output directory; its manifests/ and metadata/ are replaced")
	flag.Parse()
	files, err := build(o)
	if err == nil {
		err = write(*out, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// write replaces dir's manifests/ and metadata/ with files (relative paths),
// so a file the generator no longer makes does not linger.
func write(dir string, files map[string][]byte) error {
	for _, sub := range []string{"manifests", "metadata"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
