package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the benchmark reads.
type auditEvent struct {
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
}

// request is one API request, from its first audit event.
type request struct {
	verb, resource string
	at             time.Time // when the apiserver received it
}

// readAudit returns user's requests in the audit log, one per auditID, in
// log order. With the policy of framework.AuditPolicyForUsers a watch has
// two events (ResponseStarted, ResponseComplete) and every other request
// one, so counting auditIDs counts requests, and a watch still open at the
// end is counted too.
func readAudit(path, user string) ([]request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("audit log line %d: %w", line, err)
		}
		if ev.User.Username != user || seen[ev.AuditID] {
			continue
		}
		seen[ev.AuditID] = true
		out = append(out, request{verb: ev.Verb, resource: resourceOf(ev), at: ev.RequestReceivedTimestamp})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading audit log: %w", err)
	}
	return out, nil
}

// resourceOf is resource[/subresource], or the path of a non-resource
// request such as discovery.
func resourceOf(ev auditEvent) string {
	if ev.ObjectRef == nil || ev.ObjectRef.Resource == "" {
		path, _, _ := strings.Cut(ev.RequestURI, "?")
		return path
	}
	if ev.ObjectRef.Subresource != "" {
		return ev.ObjectRef.Resource + "/" + ev.ObjectRef.Subresource
	}
	return ev.ObjectRef.Resource
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

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
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
		case isWrite(r.verb):
			f.writes += r.count
		case isRead(r.verb):
			f.reads += r.count
		case r.verb == "watch":
			f.watches += r.count
		}
	}
	return f
}
