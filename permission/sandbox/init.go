package sandbox

// InitProcess must be the first thing main does (internal/cli.Main calls
// it before parsing flags or reading settings). It marks every descriptor
// the process inherited close-on-exec: commands are started straight from
// this process, and Go's os/exec hands every descriptor without the flag
// down to them, so a file NovaCode's parent (a shell, an IDE) left open
// outside the workspace would let a confined command write through it.
func InitProcess() {
	closeInheritedFDs()
}
