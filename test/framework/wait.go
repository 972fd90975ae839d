package framework

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/wait"
)

// waitFor polls probe until it returns nil, for at most Options.ReadyTimeout
// (and no longer than ctx allows). It gives up at once if any of procs exits,
// because a crashed component never becomes ready and its log says why. On
// timeout the error carries probe's last complaint and the end of the
// watched components' logs.
func (cp *ControlPlane) waitFor(ctx context.Context, what string, procs []*process, probe func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, probeInterval, cp.opts.ReadyTimeout, true, func(ctx context.Context) (bool, error) {
		for _, p := range procs {
			if p.exited() {
				return false, p.exitError()
			}
		}
		last = probe(ctx)
		return last == nil, nil
	})
	if err == nil {
		return nil
	}
	if !wait.Interrupted(err) {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	var tails []string
	for _, p := range procs {
		lines, lerr := tailLines(p.logPath, 20)
		if lerr != nil {
			tails = append(tails, fmt.Sprintf("%s log: %v", p.name, lerr))
			continue
		}
		tails = append(tails, fmt.Sprintf("last %s log lines:\n\t%s", p.name, strings.Join(lines, "\n\t")))
	}
	if last == nil {
		last = errors.New("not probed before the deadline")
	}
	return fmt.Errorf("timed out waiting for %s (last check: %v): %w\n%s", what, last, err, strings.Join(tails, "\n"))
}
