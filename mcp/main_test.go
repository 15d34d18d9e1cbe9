package mcp

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/novacode/nova/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MainIfServer() // the test binary re-run as a server
	goleak.VerifyTestMain(m)
}
