// Command nova is NovaCode's command line.
package main

import (
	"os"

	"github.com/novacode/nova/internal/cli"
)

func main() { os.Exit(cli.Main()) }
