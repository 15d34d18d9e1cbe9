//go:build !linux

package builtin

import "io/fs"

// Where the walk lists directories through the os package (no getdents64):
// search_fs_bsd.go and search_fs_path.go.

// entTypeOf is the entry type of a file mode.
func entTypeOf(m fs.FileMode) entType {
	switch {
	case m.IsRegular():
		return entFile
	case m.IsDir():
		return entDir
	case m&fs.ModeSymlink != 0:
		return entLink
	}
	return entOther
}

// appendEntries adds what os.ReadDir listed to out (where the walk lists
// directories through the os package).
func appendEntries(out []dirent, entries []fs.DirEntry) []dirent {
	for _, de := range entries {
		out = append(out, dirent{name: de.Name(), typ: entTypeOf(de.Type())})
	}
	return out
}
