package main

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework/auditlog"
)

// request is one API request, from its audit events.
type request struct {
	verb, resource string
	at             time.Time // when the apiserver received it
}

// readAudit returns user's requests in the audit log, one per auditID, in
// log order (see auditlog.Requests), so counting them counts requests, a
// watch still open at the end included. The benchmark never kills the
// apiserver, so a line that does not decode is an error.
func readAudit(path, user string) ([]request, error) {
	evs, err := auditlog.Requests(path, auditlog.Options{Match: auditlog.ByUser(user)})
	if err != nil {
		return nil, err
	}
	out := make([]request, 0, len(evs))
	for i := range evs {
		out = append(out, request{verb: evs[i].Verb, resource: resourceOf(&evs[i]), at: evs[i].RequestReceivedTimestamp})
	}
	return out, nil
}

// resourceOf is resource[/subresource], or the path of a non-resource
// request such as discovery, so that discovery shows in the tally by path.
func resourceOf(ev *auditlog.Event) string {
	if r := ev.Resource(); r != "" {
		return r
	}
	path, _, _ := strings.Cut(ev.RequestURI, "?")
	return path
}

// tally counts requests by verb and resource.
type tally struct {
	total  int
	counts map[[2]string]int // {verb, resource}
}

type tallyRow struct {
	verb, resource string
	count          int
}

// between tallies the requests received in [from, to].
func between(reqs []request, from, to time.Time) tally {
	t := tally{counts: map[[2]string]int{}}
	for _, r := range reqs {
		if r.at.Before(from) || r.at.After(to) {
			continue
		}
		t.total++
		t.counts[[2]string{r.verb, r.resource}]++
	}
	return t
}

// rows lists the tally's verb/resource pairs, the most frequent first.
func (t tally) rows() []tallyRow {
	rows := make([]tallyRow, 0, len(t.counts))
	for k, c := range t.counts {
		rows = append(rows, tallyRow{verb: k[0], resource: k[1], count: c})
	}
	slices.SortFunc(rows, func(a, b tallyRow) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.resource, b.resource), cmp.Compare(a.verb, b.verb))
	})
	return rows
}

func isRead(verb string) bool { return verb == "get" || verb == "list" }

// idleFigures splits an idle-window tally: writes and non-watch reads
// exclude leader-election Leases, which are reported on their own.
type idleFigures struct {
	writes, reads, watches, leases int
	other                          []tallyRow // the non-lease rows
}

func idle(t tally) idleFigures {
	var f idleFigures
	for _, r := range t.rows() {
		if r.resource == "leases" {
			f.leases += r.count
			continue
		}
		f.other = append(f.other, r)
		switch {
		case auditlog.IsWriteVerb(r.verb):
			f.writes += r.count
		case isRead(r.verb):
			f.reads += r.count
		case r.verb == "watch":
			f.watches += r.count
		}
	}
	return f
}
