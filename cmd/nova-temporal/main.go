// Command nova-temporal is nova with the Temporal engine: nova batch
// --engine temporal and nova worker, which nova hands over to it. It is a
// program of its own because the Temporal SDK more than doubles a binary
// (see internal/cli.Companion); install it beside nova.
package main

import (
	"os"

	"github.com/novacode/nova/internal/cli"
	"github.com/novacode/nova/internal/temporalcli"
)

func main() { os.Exit(cli.MainWith(temporalcli.Companion())) }
