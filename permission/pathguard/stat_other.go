//go:build !unix

package pathguard

import "io/fs"

// linkCount returns 1: the link count is not available here without
// opening the file (Windows keeps it in BY_HANDLE_FILE_INFORMATION).
func linkCount(fs.FileInfo) uint64 { return 1 }
