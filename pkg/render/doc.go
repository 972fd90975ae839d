// Package render holds the pure functions that turn an OGXServer and its
// resolved inputs into the desired child objects, as server-side apply
// configurations.
//
// Render functions take no clock, randomness or cluster access: equal
// arguments give byte-identical JSON. The child controllers, the unit tests
// and the `kubectl ogx render` command all call them, so what the
// controllers converge to is exactly what `render` prints.
package render
