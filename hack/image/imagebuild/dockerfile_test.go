package imagebuild_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ogx-k8s/ogx-controller/hack/image/imagebuild"
)

// instruction is one Dockerfile instruction with its arguments.
type instruction struct {
	cmd  string // upper case: FROM, RUN, COPY, ...
	args string
}

// parseDockerfile returns the instructions of a Dockerfile: comments and
// blank lines dropped, continuation lines joined.
func parseDockerfile(t *testing.T, data string) []instruction {
	t.Helper()
	var out []instruction
	var cur string
	for _, line := range strings.Split(data, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == "") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		cur += trimmed
		if cmd, args, ok := strings.Cut(cur, " "); ok {
			out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		} else if cur != "" {
			t.Fatalf("Dockerfile: instruction without arguments: %q", cur)
		}
		cur = ""
	}
	return out
}

// TestDockerfileAgrees: the Dockerfile (for those with Docker) and make
// image build the same image, so whichever users build, the Deployment's
// securityContext and args fit it: the final stage runs as User with
// Entrypoint, copies the binary to BinaryPath, and the build stage compiles
// it as compile does (static, -trimpath, LDFlags).
func TestDockerfileAgrees(t *testing.T) {
	data, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	all := parseDockerfile(t, string(data))
	last := -1
	for i, in := range all {
		if in.cmd == "FROM" {
			last = i
		}
	}
	if last < 1 {
		t.Fatalf("Dockerfile: want a build stage and a final stage, found FROM at %d", last)
	}
	build, final := all[:last], all[last+1:]

	var user, copyDst, copySrc string
	var entrypoint []string
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil {
				t.Errorf("Dockerfile: ENTRYPOINT %s is not in exec (JSON) form: %v", in.args, err)
			}
		case "COPY":
			f := strings.Fields(in.args)
			copySrc, copyDst = f[len(f)-2], f[len(f)-1]
		case "CMD":
			t.Errorf("Dockerfile: the final stage sets CMD %s; the image built by make image has none", in.args)
		}
	}
	if user != imagebuild.User {
		t.Errorf("Dockerfile: USER %q, make image sets %q", user, imagebuild.User)
	}
	if diff := cmp.Diff(imagebuild.Entrypoint(), entrypoint); diff != "" {
		t.Errorf("Dockerfile: ENTRYPOINT differs from make image's (-image +Dockerfile):\n%s", diff)
	}
	if copyDst != imagebuild.BinaryPath {
		t.Errorf("Dockerfile: the binary is copied to %q, make image puts it at %q", copyDst, imagebuild.BinaryPath)
	}

	var goBuild string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			goBuild = in.args
		}
	}
	if goBuild == "" {
		t.Fatal("Dockerfile: no RUN go build in the build stage")
	}
	for _, want := range []string{
		"CGO_ENABLED=0", "-trimpath", `-ldflags "` + imagebuild.LDFlags("${VERSION}") + `"`,
		"-o " + copySrc, "./cmd/ogx-controller",
	} {
		if !strings.Contains(goBuild, want) {
			t.Errorf("Dockerfile: the go build (%s) lacks %s, which make image's build has", goBuild, want)
		}
	}
}
