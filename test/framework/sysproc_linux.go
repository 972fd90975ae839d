package framework

import "syscall"

// sysProcAttr puts each component in its own process group, so stop can
// signal it together with anything it forks, and asks the kernel to SIGKILL
// it when the test binary dies. That covers what deferred cleanup cannot:
// `go test -timeout` panics and os.Exit skip Stop, and without Pdeathsig the
// components would outlive the test holding ports and temp files. (Linux
// delivers the signal when the OS thread that started the child exits; the Go
// runtime keeps its threads for the life of the process unless a goroutine
// exits while locked to one, which this package never does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
