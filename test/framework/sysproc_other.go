//go:build unix && !linux

package framework

import "syscall"

// sysProcAttr puts each component in its own process group, so stop can
// signal it together with anything it forks. Only Linux can also tie the
// child's life to the test binary's; elsewhere a killed test binary may leave
// components running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
