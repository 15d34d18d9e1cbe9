package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// SetMCPServer puts def, one MCP server's definition (a JSON object), under
// name in the "mcpServers" object of the file at path — the user's settings
// file, .novacode/settings.local.json or .mcp.json — creating the member and
// the file as needed, in place of a definition of that name. The file's
// other members stay as written and in their order, as do the other
// servers (only re-indented). private is for a file of the person's own
// (their settings, the local one): readable by them only, and kept out of
// git when created in a work tree; .mcp.json is the project's, shared. It
// reports whether a definition of that name was replaced.
func SetMCPServer(path, name string, def json.RawMessage, private bool) (replaced bool, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(def, &obj); err != nil {
		return false, fmt.Errorf("the definition of MCP server %q is not a JSON object", name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, def); err != nil {
		return false, err
	}
	err = editMCPServers(path, private, func(servers []topMember) ([]topMember, error) {
		out := servers[:0]
		for _, s := range servers {
			switch {
			case s.key != name:
				out = append(out, s)
			case !replaced:
				replaced = true
				out = append(out, topMember{key: name, value: compact.Bytes()})
			}
			// a repeated name: encoding/json would read the last one;
			// the new definition replaces them all
		}
		if !replaced {
			out = append(out, topMember{key: name, value: compact.Bytes()})
		}
		return out, nil
	})
	return replaced, err
}

// RemoveMCPServer removes the server name from the "mcpServers" object of
// the file at path, keeping the rest as SetMCPServer does; it reports
// whether the file defined it. A file that does not exist defines none and
// is not created.
func RemoveMCPServer(path, name string, private bool) (removed bool, err error) {
	servers, err := MCPServerNames(path)
	if err != nil || !contains(servers, name) {
		return false, err
	}
	err = editMCPServers(path, private, func(servers []topMember) ([]topMember, error) {
		out := servers[:0]
		for _, s := range servers {
			if s.key == name {
				removed = true
				continue
			}
			out = append(out, s)
		}
		return out, nil
	})
	return removed, err
}

// MCPServerNames lists the names in the "mcpServers" object of the file at
// path, in file order; none when the file or the member does not exist.
func MCPServerNames(path string) ([]string, error) {
	data, err := readIfExists(path)
	if err != nil || data == nil {
		return nil, err
	}
	top, err := topLevel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a JSON object (%v)", path, err)
	}
	at := mcpServersMember(top)
	if at < 0 {
		return nil, nil
	}
	servers, err := serversOf(top[at].value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var names []string
	for _, s := range servers {
		if !contains(names, s.key) {
			names = append(names, s.key)
		}
	}
	return names, nil
}

// editMCPServers rewrites the "mcpServers" object of the file at path.
func editMCPServers(path string, private bool, edit func([]topMember) ([]topMember, error)) error {
	return updateFile(path, fileOptions{private: private, exclude: private}, func(top []topMember) ([]topMember, error) {
		at := mcpServersMember(top)
		var servers []topMember
		if at >= 0 {
			var err error
			if servers, err = serversOf(top[at].value); err != nil {
				return nil, err
			}
		} else {
			top = append(top, topMember{key: "mcpServers"})
			at = len(top) - 1
		}
		servers, err := edit(servers)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		b.WriteString("{")
		for i, s := range servers {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(s.key)
			fmt.Fprintf(&b, "%s:%s", k, s.value)
		}
		b.WriteString("}")
		var value bytes.Buffer
		if err := json.Indent(&value, b.Bytes(), "  ", "  "); err != nil {
			return nil, err
		}
		top[at].value = value.Bytes()
		return top, nil
	})
}

// mcpServersMember is the index of the "mcpServers" member: the one of
// that exact name, else the first that encoding/json would read as it
// (case folded); -1 when there is none.
func mcpServersMember(top []topMember) int {
	for i, m := range top {
		if m.key == "mcpServers" {
			return i
		}
	}
	for i, m := range top {
		if strings.EqualFold(m.key, "mcpServers") {
			return i
		}
	}
	return -1
}

// serversOf reads the "mcpServers" value: an object (null is an empty one).
func serversOf(value json.RawMessage) ([]topMember, error) {
	if v := bytes.TrimSpace(value); len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	servers, err := topLevel(value)
	if err != nil {
		return nil, errors.New(`"mcpServers" is not an object of server definitions; fix it and try again`)
	}
	return servers, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// readIfExists reads the file at path; nil without an error when it does
// not exist.
func readIfExists(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
