package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// printStatus lays out what was read as kubectl describe would: fields,
// then tables of conditions, children and Events. Ages are relative to now.
func printStatus(st *serverStatus, now time.Time) string {
	var b strings.Builder
	age := func(t time.Time) string {
		if t.IsZero() {
			return "<unknown>"
		}
		return duration.HumanDuration(now.Sub(t))
	}
	printFields(&b, st, age)
	printConditions(&b, st, age)
	printChildren(&b, st)
	printEvents(&b, st, age)
	return trimLines(b.String())
}

// table is a tabwriter laid out as every table of status is.
func table(out io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(out, 0, 4, 2, ' ', 0) }

// printFields writes the server's fields, one per line.
func printFields(b *strings.Builder, st *serverStatus, age func(time.Time) string) {
	s := st.server
	w := table(b)
	field := func(k, v string) {
		if v == "" {
			v = "<none>"
		}
		fmt.Fprintf(w, "%s:\t%s\n", k, v)
	}
	field("Name", s.Name)
	field("Namespace", s.Namespace)
	field("Age", age(s.CreationTimestamp.Time))
	field("Phase", string(s.Status.Phase))
	field("Generation", fmt.Sprintf("%d (observed %d)", s.Generation, s.Status.ObservedGeneration))
	field("Distribution", s.Status.DistributionConfig.ActiveDistribution)
	image, source := "", ""
	if r := s.Status.ResolvedDistribution; r != nil {
		image, source = r.Image, r.ConfigSource
	}
	field("Image", image)
	field("Config source", source)
	if cg := s.Status.ConfigGeneration; cg != nil {
		field("Generated config", cg.ConfigMapName)
	}
	field("Service URL", s.Status.ServiceURL)
	if s.Status.ExternalURL != nil {
		field("External URL", *s.Status.ExternalURL)
	}
	field("Server version", s.Status.Version.ServerVersion)
	field("Operator version", s.Status.Version.OperatorVersion)
	_ = w.Flush()
}

// printConditions writes the conditions table.
func printConditions(b *strings.Builder, st *serverStatus, age func(time.Time) string) {
	s := st.server
	b.WriteString("\nConditions:\n")
	if len(s.Status.Conditions) == 0 {
		b.WriteString("  <none>\n")
		return
	}
	w := table(b)
	fmt.Fprintln(w, "  TYPE\tSTATUS\tREASON\tAGE\tMESSAGE")
	for _, c := range s.Status.Conditions {
		msg := oneLine(c.Message)
		if c.ObservedGeneration != s.Generation {
			// Written for an older spec: not yet news about this one.
			msg = strings.TrimSpace(fmt.Sprintf("%s (observed generation %d)", msg, c.ObservedGeneration))
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, age(c.LastTransitionTime.Time), msg)
	}
	_ = w.Flush()
}

// printChildren writes the children table.
func printChildren(b *strings.Builder, st *serverStatus) {
	b.WriteString("\nChildren:\n")
	w := table(b)
	fmt.Fprintln(w, "  KIND\tNAME\tEXISTS\tREADY")
	for _, c := range st.children {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", c.kind, c.name, c.exists, cmp.Or(c.ready, "-"))
	}
	_ = w.Flush()
}

// printEvents writes the Events table, or why there is none.
func printEvents(b *strings.Builder, st *serverStatus, age func(time.Time) string) {
	b.WriteString("\nEvents:\n")
	switch {
	case st.eventsErr != nil:
		fmt.Fprintf(b, "  <unknown: %v>\n", st.eventsErr)
		return
	case len(st.events) == 0:
		b.WriteString("  <none>\n")
		return
	}
	w := table(b)
	fmt.Fprintln(w, "  TYPE\tREASON\tAGE\tFROM\tMESSAGE")
	for _, e := range st.events {
		when := age(lastSeen(e))
		if n := eventCount(e); n > 1 {
			when = fmt.Sprintf("%s (x%d over %s)", when, n, age(firstSeen(e)))
		}
		from := cmp.Or(e.Source.Component, e.ReportingController)
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", e.Type, e.Reason, when, from, oneLine(e.Message))
	}
	_ = w.Flush()
}

// trimLines drops the spaces tabwriter leaves after an empty last column.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// eventCount is how often an Event happened.
func eventCount(e corev1.Event) int32 {
	if e.Series != nil && e.Series.Count > 0 {
		return e.Series.Count
	}
	return e.Count
}

// oneLine keeps a table row on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
