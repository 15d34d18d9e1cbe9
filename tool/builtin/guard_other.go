//go:build !unix

package builtin

// openReadFlags: no FIFO or terminal concerns here.
const openReadFlags = 0
