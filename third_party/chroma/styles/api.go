package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/novacode/nova/third_party/chroma"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// NovaCode's copy: the embedded styles are parsed into the registry on the
// first Get or Names, not at init (about 4 ms and 1.6 MB of allocations at
// every start of a program that may never highlight). Until then Registry
// holds only the styles given to Register, which keep their place over
// embedded ones of the same name, as if they had been registered after them.
// The deprecated variables naming each style (styles.Monokai, …) are gone:
// they were what forced the parse at init. Use Get.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style.
//
// NovaCode's copy: parsed on its own at init, so it is valid before the
// first Get, and the same style that the registry holds as "swapoff".
var Fallback = mustParse("swapoff.xml")

var loadOnce sync.Once

// load parses every embedded style into Registry, once.
func load() {
	loadOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			style := swapoff
			if file.Name() != "swapoff.xml" {
				style = mustParse(file.Name())
			}
			if _, registered := Registry[style.Name]; !registered {
				Registry[style.Name] = style
			}
		}
	})
}

// swapoff is the embedded "swapoff" style, which Fallback starts as.
var swapoff = Fallback

func mustParse(name string) *chroma.Style {
	r, err := embedded.Open(name)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	load()
	if style, ok := Registry[name]; ok {
		return style
	}
	return Fallback
}
