package main

import (
	"runtime/debug"
	"testing"
)

func TestSetGCPercentYieldsToGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	setGCPercent(37, "")
	if got := debug.SetGCPercent(100); got != 37 {
		t.Errorf("without GOGC: GC percent %d, want 37", got)
	}
	setGCPercent(37, "200")
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent changed to %d", got)
	}
}
