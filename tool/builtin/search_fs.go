package builtin

// What the search walk needs of the file system, whatever the platform:
// search_fs_at.go opens every entry relative to its directory's descriptor
// (openat, never following a symbolic link), search_fs_path.go by path where
// there is no openat.

// entType is what a directory listing says an entry is.
type entType uint8

const (
	entUnknown entType = iota // the file system did not say: stat it
	entFile
	entDir
	entLink
	entOther // FIFOs, sockets, devices: never searched
)

// dirent is one entry of a directory listing.
type dirent struct {
	name string
	ino  uint64 // 0 where the listing gives none
	typ  entType
}

// fileStat is what the walk learns of an entry it stats or opens.
type fileStat struct {
	ino   uint64
	links uint64
	mtime int64 // Unix nanoseconds
	size  int64
	typ   entType
}

// errChanged is an entry that is no longer what its listing said (another
// file, a symbolic link, a FIFO swapped in): it is skipped.
type errChanged struct{ what string }

func (e *errChanged) Error() string { return e.what }
