// Command ogx-controller runs OGX servers on Kubernetes: it converges every
// OGXServer's children to its spec and reports status.
//
// Subcommands:
//
//	ogx-controller version   print the build version
//
// The controller loop (the default command), `render` and `migrate` are
// added as their issues land; see the README.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "version" {
		fmt.Fprintln(stdout, version)
		return 0
	}
	fmt.Fprintln(stderr, "usage: ogx-controller version")
	return 2
}
