//go:build !unix

package builtin

// openReadFlags: no FIFO or terminal concerns here.
const openReadFlags = 0

// openNoFollow: no such flag here.
const openNoFollow = 0
