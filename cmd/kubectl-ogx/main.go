// Command kubectl-ogx is the kubectl plugin of ogx-controller: with the
// binary on PATH, kubectl runs it for `kubectl ogx ...` (docs/cli.md).
//
//	kubectl ogx render -f server.yaml    print every child object of an OGXServer, offline
//	kubectl ogx migrate -f llsd.yaml     print the OGXServer for a LlamaStackDistribution
//	kubectl ogx status NAME [-n NS]      one OGXServer's conditions, children and Events
//	kubectl ogx version | --version      print the build version
//	kubectl ogx help | --help            list the commands
//
// render and migrate need the API server's schema and CEL code
// (pkg/crdvalidate); they live here rather than in the
// controller binary so that no controller replica carries it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := dispatch(ctx, os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// streams are a command's standard input and outputs.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// dispatch runs a subcommand and returns the process exit code: 0 done, 1 a
// failure, 2 usage (an unknown command, bad flags), and 3 for render's and
// migrate's invalid input (docs/cli.md).
func dispatch(ctx context.Context, args []string, s streams) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, usage)
		return exitUsage
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "--version", "-version":
		cmd = "version"
	case "--help", "-help", "-h":
		cmd = "help"
	}
	switch cmd {
	case "help":
		if len(args) > 0 && args[0] != "help" && args[0] != "version" {
			return dispatch(ctx, []string{args[0], "-h"}, s)
		}
		fmt.Fprint(s.out, usage)
		return exitOK
	case "version":
		fmt.Fprintln(s.out, version)
		return exitOK
	case "migrate":
		return runMigrate(args, s.in, s.out, s.err)
	case "render":
		return runRender(args, s.in, s.out, s.err)
	case "status":
		return runStatus(ctx, args, s.out, s.err, newClusterClients, time.Now)
	}
	fmt.Fprintf(s.err, "unknown command %q\n%s", cmd, usage)
	return exitUsage
}

// usage is the command list `help` prints.
const usage = `usage: kubectl ogx COMMAND [flags]

commands:
  render    print every child object of an OGXServer, offline (-f FILE)
  migrate   print the OGXServer for a LlamaStackDistribution, offline (-f FILE)
  status    one OGXServer's conditions, children and Events (NAME [-n NAMESPACE])
  version   print the build version
  help      this list; help COMMAND lists the command's flags

exit codes: 0 done, 1 failure, 2 usage, 3 invalid input (render, migrate)
`
