// Command searchcall makes one call of a built-in file tool (Grep, Glob or
// Read) as a session makes it, with the path guard of a workspace, and
// writes the tool's result to standard output: what novabench's search
// benchmark times against ripgrep, each in a process of its own.
//
// Usage:
//
//	searchcall -dir WS -tool Grep -input '{"pattern":"func NewServer"}'
//	searchcall -tool none                  the idle baseline: set up, exit
//	searchcall -dir WS -recheck rg ARGS…   ripgrep, then every path it
//	                                       printed re-checked by the guard
//	-hwm                                   also write VmHWM to standard error
//	-cpuprofile FILE                       profile the call
//
// -recheck is the other design the issue offered (ripgrep where installed,
// its output re-checked): each listed file is opened and its real path
// judged, as the file tools judge what they open.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/novacode/nova/permission/pathguard"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

func main() {
	dir := flag.String("dir", ".", "the workspace")
	name := flag.String("tool", "Grep", "Grep, Glob, Read, or none")
	input := flag.String("input", "{}", "the call's input (JSON)")
	recheck := flag.Bool("recheck", false, "run the command after the flags, then re-check each path it prints")
	hwm := flag.Bool("hwm", false, "write the process's peak resident size (VmHWM) to standard error at the end")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the call to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "searchcall:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "searchcall:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*dir, *name, *input, *recheck, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "searchcall:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	if *hwm {
		// This process's own high-water mark: a child's ru_maxrss would
		// also count its parent's pages at the fork.
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, "VmHWM:") {
					fmt.Fprintln(os.Stderr, l)
				}
			}
		}
	}
}

func run(dir, name, input string, recheck bool, args []string) error {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	g, err := pathguard.New(ws, nil, home)
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer out.Flush()
	if recheck {
		return rgRecheck(g, ws, args, out)
	}
	if name == "none" {
		return nil
	}
	env := &tool.Env{Dir: ws, Files: tool.NewFileState(), Guard: g}
	for _, tl := range builtin.All() {
		if tl.Name() == name {
			res, err := tl.Run(context.Background(), env, json.RawMessage(input))
			if err != nil {
				return err
			}
			if res.IsError {
				return fmt.Errorf("%s: %s", name, res.Content)
			}
			_, err = out.WriteString(res.Content)
			return err
		}
	}
	return fmt.Errorf("no tool %q", name)
}

// rgRecheck runs ripgrep in ws and re-checks every path it printed (one a
// line, relative to ws): open, real path, Recheck, as the file tools do.
func rgRecheck(g *pathguard.Guard, ws string, args []string, out *bufio.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("-recheck needs a command")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = ws
	cmd.Stderr = os.Stderr
	listed, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		return err
	}
	refused := 0
	for _, line := range bytes.Split(listed, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		p := filepath.Join(ws, string(line))
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			refused++
			continue
		}
		real, err := g.RealPath(f)
		if err == nil {
			err = g.Recheck(real, false, nil)
		}
		f.Close()
		if err != nil {
			refused++
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	fmt.Fprintf(out, "(%d refused)\n", refused)
	return nil
}
