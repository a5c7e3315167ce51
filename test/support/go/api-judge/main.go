// api-judge: the kubelet's container hash of one minor release, over that release's real types.
//
// One source for every minor: .ci/provision/45-api-judges.sh builds it once per line of
// releases.txt, in a module of its own that requires that minor's k8s.io/api and
// k8s.io/apimachinery from the Go module proxy (and go-spew), so v1.Container here is exactly the
// minor's. The hash itself is Kubernetes' few lines (pkg/kubelet/container HashContainer,
// pkg/util/hash DeepHashObject), restated because Kubernetes' own tree is not a module one can
// require: go-spew with the config DeepHashObject uses, fed to FNV-1a 32.
//
// The algorithm is the first argument, as the minor's kubelet hashes:
//
//	legacy                  1.8–1.15: spew %#v of the v1.Container value
//	json                    1.16–1.30: spew %#v of json.Marshal(container)
//	json-without-resources  1.27–1.30: the same over a copy with empty Resources
//	name-image              1.31+: spew %#v of json.Marshal({"name", "image"})
//	closure                 prints v1.Container's type closure (one JSON line a type), so a test
//	                        can check these are the types the library models
//
// Protocol (stdin/stdout): ../hash-judge-protocol/protocol.go, built in beside this file. The
// judge's encoding/json is the Go that built it (1.26 in CI): \b and \f, as since Go 1.22.
package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"reflect"

	"github.com/davecgh/go-spew/spew"
	v1 "k8s.io/api/core/v1"
)

// The config of pkg/util/hash.DeepHashObject (and of dump.ForHash's %#v, which prints the same).
var printer = spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}

func deepHash(obj interface{}) uint64 {
	h := fnv.New32a()
	printer.Fprintf(h, "%#v", obj)
	return uint64(h.Sum32())
}

func hashJSON(c *v1.Container) uint64 {
	b, _ := json.Marshal(c)
	return deepHash(b)
}

func hashWithoutResources(c *v1.Container) uint64 {
	copied := c.DeepCopy()
	copied.Resources = v1.ResourceRequirements{}
	return hashJSON(copied)
}

func hashNameImage(c *v1.Container) uint64 {
	b, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
	return deepHash(b)
}

// The legacy kubelet hashed the dereferenced container: spew prints every field of the value.
func hashLegacy(c *v1.Container) uint64 { return deepHash(*c) }

type field struct {
	GoName  string `json:"goName"`
	GoType  string `json:"goType"`
	JSONTag string `json:"jsonTag"`
}

type closureType struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	Elem   string  `json:"elem,omitempty"`
	Key    string  `json:"key,omitempty"`
	Fields []field `json:"fields,omitempty"`
}

// printClosure walks the named types reachable from v1.Container (through fields, pointers,
// slices, maps), breadth first, and prints each once.
func printClosure() {
	seen := map[reflect.Type]bool{}
	queue := []reflect.Type{reflect.TypeOf(v1.Container{})}
	out := json.NewEncoder(os.Stdout)
	visit := func(t reflect.Type) {
		for t.Name() == "" && (t.Kind() == reflect.Ptr || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			t = t.Elem()
		}
		if t.Name() == "" && t.Kind() == reflect.Map {
			queue = append(queue, t.Key(), t.Elem())
			return
		}
		if t.Name() != "" && t.PkgPath() != "" && !seen[t] {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if seen[t] || t.PkgPath() == "" {
			if t.PkgPath() == "" {
				visit(t)
			}
			continue
		}
		seen[t] = true
		ct := closureType{Name: t.String(), Kind: t.Kind().String()}
		switch t.Kind() {
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				ct.Fields = append(ct.Fields, field{f.Name, f.Type.String(), f.Tag.Get("json")})
				visit(f.Type)
			}
		case reflect.Map:
			ct.Key, ct.Elem = t.Key().String(), t.Elem().String()
			visit(t.Key())
			visit(t.Elem())
		case reflect.Ptr, reflect.Slice, reflect.Array:
			ct.Elem = t.Elem().String()
			visit(t.Elem())
		}
		if err := out.Encode(ct); err != nil {
			os.Exit(3)
		}
	}
}

func main() {
	algorithms := map[string]func(*v1.Container) uint64{
		"legacy":                 hashLegacy,
		"json":                   hashJSON,
		"json-without-resources": hashWithoutResources,
		"name-image":             hashNameImage,
	}
	if len(os.Args) == 2 && os.Args[1] == "closure" {
		printClosure()
		return
	}
	if len(os.Args) != 2 || algorithms[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: api-judge legacy|json|json-without-resources|name-image|closure")
		os.Exit(2)
	}
	serve(algorithms[os.Args[1]])
}
