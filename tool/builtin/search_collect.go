package builtin

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// grepCollector gathers what a Grep finds, from every worker, in memory
// bounded by what the output can show: the output is at most outputBudget
// bytes (and head_limit entries), so of the files found only those that can
// reach it are kept — the newest in files_with_matches mode, the first by
// path otherwise — while the totals count them all.
type grepCollector struct {
	mu          sync.Mutex
	mode        string
	lineNumbers bool
	headLimit   int // 0: none
	budget      int // bytes of output
	context     bool
	// maxEntries bounds the files kept in files_with_matches and count
	// modes: no more fit in the budget, each taking a line of at least
	// minLine bytes.
	maxEntries int

	files   grepHeap // files and count modes
	content []grepFile
	// Totals over every file found.
	nfiles   int
	nmatches int
	nout     int // content mode: output lines, with "--" between files
}

// grepFile is what was found in one file.
type grepFile struct {
	path  string
	mtime int64
	count int
	lines []grepLine // content mode, as kept by the scan
	nout  int        // content mode: every output line of the file
	note  string
	// dropped: the scan kept only the file's first lines.
	dropped bool
}

// fromScan makes the grepFile of a scan's result.
func fromScan(path string, mtime int64, r *scanResult) grepFile {
	return grepFile{path: path, mtime: mtime, count: r.count, lines: r.lines, nout: r.nout, note: r.note, dropped: r.dropped}
}

func newGrepCollector(mode string, headLimit, budget, minLine int, context bool) *grepCollector {
	c := &grepCollector{mode: mode, headLimit: headLimit, budget: budget, context: context}
	c.maxEntries = budget/max(minLine, 1) + 1
	if headLimit > 0 {
		c.maxEntries = min(c.maxEntries, headLimit)
	}
	switch mode {
	case modeFiles:
		c.files.less = func(a, b *grepFile) bool { // the oldest on top
			if a.mtime != b.mtime {
				return a.mtime < b.mtime
			}
			return a.path > b.path
		}
	case modeCount:
		c.files.less = func(a, b *grepFile) bool { return a.path > b.path } // the last by path on top
	}
	return c
}

// add takes one file's findings.
func (c *grepCollector) add(f grepFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nfiles++
	c.nmatches += f.count
	if c.mode != modeContent {
		f.lines = nil
		heap.Push(&c.files, &f)
		if c.files.Len() > c.maxEntries {
			heap.Pop(&c.files)
		}
		return
	}
	if c.context && c.nfiles > 1 {
		c.nout++ // "--" between files
	}
	c.nout += f.nout
	i, _ := slices.BinarySearchFunc(c.content, f.path, func(x grepFile, p string) int { return strings.Compare(x.path, p) })
	c.content = slices.Insert(c.content, i, f)
	// Drop the last files while those before them fill the output anyway.
	lines, bytes := 0, 0
	for i := range c.content {
		if i > 0 && (c.headLimit > 0 && lines >= c.headLimit || bytes >= c.budget) {
			clear(c.content[i:])
			c.content = c.content[:i]
			break
		}
		lines += len(c.content[i].lines)
		for _, l := range c.content[i].lines {
			bytes += len(c.content[i].path) + len(l.text) + 8
		}
	}
}

// format renders the output in ripgrep's format; notes about what was left
// out follow.
func (c *grepCollector) format() string {
	if c.nfiles == 0 {
		if c.mode == modeFiles {
			return "No files found"
		}
		return "No matches found"
	}
	var b strings.Builder
	limitNote := func(shown, total int, what string, byHead bool) {
		if shown >= total {
			return
		}
		if byHead {
			fmt.Fprintf(&b, "(Showing %d of %d %s: head_limit reached.)\n", shown, total, what)
		} else {
			fmt.Fprintf(&b, "(Showing %d of %d %s: the output is limited to %d characters. Narrow the search with path, glob or type, or page with head_limit.)\n", shown, total, what, c.budget)
		}
	}
	headReached := func(n int) bool { return c.headLimit > 0 && n >= c.headLimit }
	switch c.mode {
	case modeFiles:
		files := c.files.sorted(func(a, b *grepFile) int {
			if a.mtime != b.mtime {
				return cmp.Compare(b.mtime, a.mtime) // newest first
			}
			return strings.Compare(a.path, b.path)
		})
		fmt.Fprintf(&b, "Found %s\n", plural(c.nfiles, "file"))
		n := 0
		for _, f := range files {
			if headReached(n) || b.Len()+len(f.path) > c.budget {
				break
			}
			b.WriteString(f.path)
			b.WriteByte('\n')
			n++
		}
		limitNote(n, c.nfiles, "files", headReached(n))
	case modeCount:
		files := c.files.sorted(func(a, b *grepFile) int { return strings.Compare(a.path, b.path) })
		n := 0
		for _, f := range files {
			line := f.path + ":" + strconv.Itoa(f.count) + "\n"
			if headReached(n) || b.Len()+len(line) > c.budget {
				break
			}
			b.WriteString(line)
			n++
		}
		limitNote(n, c.nfiles, "files", headReached(n))
		fmt.Fprintf(&b, "\nFound %s across %s.\n", plural(c.nmatches, "matching line"), plural(c.nfiles, "file"))
	default:
		n := 0
	files:
		for fi, f := range c.content {
			prev := -1
			lines := f.lines
			for _, l := range lines {
				var line string
				// ripgrep separates non-adjacent groups with "--" when
				// context is on, also between files.
				if c.context && (fi > 0 || prev >= 0) && (prev < 0 || l.n != prev+1) {
					line = "--\n"
					if headReached(n) || b.Len()+len(line) > c.budget {
						break files
					}
					b.WriteString(line)
					n++
				}
				prev = l.n
				sep := "-"
				if l.match {
					sep = ":"
				}
				if c.lineNumbers {
					line = f.path + sep + strconv.Itoa(l.n) + sep + l.text + "\n"
				} else {
					line = f.path + sep + l.text + "\n"
				}
				if headReached(n) || b.Len()+len(line) > c.budget {
					break files
				}
				b.WriteString(line)
				n++
			}
			if f.note != "" {
				line := f.path + ": " + f.note + "\n"
				if headReached(n) || b.Len()+len(line) > c.budget {
					break
				}
				b.WriteString(line)
				n++
			}
			if f.dropped {
				break // the scan kept only the file's first lines
			}
		}
		if n < c.nout {
			limitNote(n, c.nout, "lines", headReached(n))
		}
	}
	return b.String()
}

// grepHeap is a heap of files ordered by less (the file to drop first on
// top).
type grepHeap struct {
	items []*grepFile
	less  func(a, b *grepFile) bool
}

func (h *grepHeap) Len() int           { return len(h.items) }
func (h *grepHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *grepHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *grepHeap) Push(x any)         { h.items = append(h.items, x.(*grepFile)) }
func (h *grepHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items[len(h.items)-1] = nil
	h.items = h.items[:len(h.items)-1]
	return x
}

// sorted returns the kept files in order.
func (h *grepHeap) sorted(order func(a, b *grepFile) int) []*grepFile {
	out := slices.Clone(h.items)
	slices.SortFunc(out, order)
	return out
}
