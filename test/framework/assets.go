package framework

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// AssetsEnv names the environment variable holding the directory of
// control-plane programs. The Makefile exports it as the repository's bin/.
const AssetsEnv = "OGX_TEST_ASSETS"

// modulePath identifies this repository's root go.mod. Nested modules (such
// as test/tools) have other paths, so walking up from a test package's
// directory stops at the right go.mod.
const modulePath = "github.com/ogx-k8s/ogx-controller"

// kwokStagesFile is the stage definitions kwok refuses to start without;
// `make tools` writes it next to the binaries.
const kwokStagesFile = "kwok-stages.yaml"

// ModuleRoot returns the repository root: the nearest directory, walking up
// from the working directory, whose go.mod declares this module. `go test`
// runs each test binary in its package directory, so this works from any
// package and lets tests locate files such as config/crd/bases.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getting working directory: %w", err)
	}
	for dir := wd; ; {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		switch {
		case err == nil:
			if modfile.ModulePath(data) == modulePath {
				return dir, nil
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("reading %s: %w", filepath.Join(dir, "go.mod"), err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod for module %s in %s or any parent directory", modulePath, wd)
		}
		dir = parent
	}
}

// assets holds the absolute paths of the programs and files a control plane
// runs, resolved and checked before anything starts.
type assets struct {
	etcd, apiServer, controllerManager, scheduler, kwok, kwokStages string
}

// KubectlPath returns the kubectl the Makefile builds into the assets
// directory (make bin/kubectl, a prerequisite of make test), for tests that
// run a user's commands as the user would. A missing one is an error, not a
// skip: a skipped test looks like a passing one.
func KubectlPath() (string, error) {
	dir := os.Getenv(AssetsEnv)
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			return "", fmt.Errorf("locating kubectl (set %s to override): %w", AssetsEnv, err)
		}
		dir = filepath.Join(root, "bin")
	}
	p := filepath.Join(dir, "kubectl")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no kubectl at %s: run make bin/kubectl (or set %s): %w", p, AssetsEnv, err)
	}
	return p, nil
}

// resolveAssets finds the programs in dir (or the default directory when dir
// is empty) and fails, naming every missing file, when one is absent. A
// missing binary is an error rather than a skip: silently skipped integration
// tests look like passing ones.
func resolveAssets(dir string, full bool) (assets, error) {
	if dir == "" {
		dir = os.Getenv(AssetsEnv)
	}
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			return assets{}, fmt.Errorf("locating control-plane programs (set %s to override): %w", AssetsEnv, err)
		}
		dir = filepath.Join(root, "bin")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return assets{}, fmt.Errorf("resolving assets directory %q: %w", dir, err)
	}

	var a assets
	want := []struct {
		dst  *string
		name string
	}{{&a.etcd, Etcd}, {&a.apiServer, APIServer}}
	if full {
		want = append(want, []struct {
			dst  *string
			name string
		}{
			{&a.controllerManager, ControllerManager},
			{&a.scheduler, Scheduler},
			{&a.kwok, Kwok},
			{&a.kwokStages, kwokStagesFile},
		}...)
	}
	var missing []string
	for _, w := range want {
		p := filepath.Join(dir, w.name)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
			continue
		}
		*w.dst = p
	}
	if len(missing) > 0 {
		return assets{}, fmt.Errorf("control-plane files missing: %s; run `make tools` in the repository root to build them (or point %s at a directory holding them)",
			strings.Join(missing, ", "), AssetsEnv)
	}
	return a, nil
}
