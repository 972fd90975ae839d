// Command ogx-controller runs OGX servers on Kubernetes: it converges every
// OGXServer's children to its spec and reports status.
//
//	ogx-controller [run] [flags]         run the controller (the default)
//	ogx-controller check-admission       check the admission webhook denies an invalid OGXServer (helm test)
//	ogx-controller version | --version   print the build version
//	ogx-controller help | --help         list the commands
//
// The offline commands render and migrate live in the kubectl plugin
// (cmd/kubectl-ogx, docs/cli.md): they need the API server's schema and CEL
// code, which every controller replica would otherwise load for nothing.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs a subcommand and returns the process exit code.
func dispatch(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	switch {
	case len(args) == 0:
	case args[0] == "--version" || args[0] == "-version":
		// What users of other operators' binaries type first.
		cmd, args = "version", args[1:]
	case args[0] == "--help" || args[0] == "-help" || args[0] == "-h":
		// The commands first; `help run` lists the controller's flags.
		cmd, args = "help", args[1:]
	case args[0] != "" && args[0][0] != '-':
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help":
		if len(args) > 0 && args[0] != "help" && args[0] != "version" {
			return dispatch([]string{args[0], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		fmt.Fprintln(stdout, version)
		return 0
	case "run":
		ctx, stop := signalContext()
		defer stop()
		return runController(ctx, args, stderr)
	case "migrate", "render":
		// Scripts written for the binary that carried them get one line
		// naming the new home, not the command list.
		fmt.Fprintf(stderr, "ogx-controller: %s has moved to the kubectl plugin: run kubectl ogx %s (docs/cli.md)\n", cmd, cmd)
		return 2
	case "check-admission":
		ctx, stop := signalContext()
		defer stop()
		return runCheckAdmission(ctx, args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "unknown command %q\n%s", cmd, usage)
	return 2
}

// usage is the command list `help` prints.
const usage = `usage: ogx-controller [command] [flags]

commands:
  run       run the controller (the default)
  check-admission
            check that the admission webhook denies an invalid OGXServer
            (the Helm chart's helm test)
  version   print the build version
  help      this list; help run lists the controller's flags

render and migrate are commands of the kubectl plugin: kubectl ogx --help.
`

// signalContext is cancelled on the first SIGTERM or SIGINT; a second signal
// exits at once with code 1.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-ch
		cancel()
		<-ch
		os.Exit(1)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
