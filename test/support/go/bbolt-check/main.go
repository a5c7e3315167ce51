// bbolt-check: real bbolt (Debian's go.etcd.io/bbolt) as an independent judge of a meta.db.
//
// Usage: bbolt-check [-namespace k8s.io] [-tree] FILE
//
// Opens FILE read-only (with a lock timeout, so a file a running containerd holds is reported,
// not waited for), runs tx.Check() and prints one JSON object on stdout:
//
//	{"file":…, "opened":true, "txid":N, "check":["…"], "hashes":{ID:{"hash":…}}, "tree":{PATH:DIGEST}}
//
// "hashes" has, for every container of the namespace whose io.cri-containerd.container.metadata
// extension decodes (a protobuf Any around the CRI plugin's JSON), the io.kubernetes.container.hash*
// annotations of Config. "undecoded" lists the containers whose extension does not decode. With
// -tree, "tree" maps every key of the file (bucket path, "/"-joined, bytes outside [A-Za-z0-9._:-]
// as %XX) to the SHA-256 of its value ("bucket" for a sub-bucket).
//
// Exit status: 0 when the file opened and the check found nothing; 1 when the check found faults;
// 2 when bbolt could not open or read the file (the "error" member says why; bbolt panics on some
// damage, and a panic is reported the same way). One file per process, on purpose: some damage
// makes bbolt fault in a goroutine of its own, which no recover can catch.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

const extensionKey = "io.cri-containerd.container.metadata"

type hashes map[string]string

type report struct {
	File      string            `json:"file"`
	Opened    bool              `json:"opened"`
	Error     string            `json:"error,omitempty"`
	Txid      int               `json:"txid"`
	Check     []string          `json:"check"`
	Hashes    map[string]hashes `json:"hashes"`
	Undecoded []string          `json:"undecoded"`
	Tree      map[string]string `json:"tree,omitempty"`
}

// anyValue returns field 2 (value) of a protobuf Any whose field 1 (type_url) names the CRI metadata type.
func anyValue(b []byte) ([]byte, error) {
	var typeURL string
	var value []byte
	for len(b) > 0 {
		tag, n := uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad tag varint")
		}
		b = b[n:]
		if tag&7 != 2 {
			return nil, fmt.Errorf("wire type %d, want length-delimited", tag&7)
		}
		size, m := uvarint(b)
		if m <= 0 || uint64(len(b)-m) < size {
			return nil, errors.New("bad length")
		}
		field := b[m : m+int(size)]
		b = b[m+int(size):]
		switch tag >> 3 {
		case 1:
			typeURL = string(field)
		case 2:
			value = field
		}
	}
	// containerd 1.6 ".../containerd/cri/pkg/store/container/Metadata"; later releases moved the package.
	if !strings.HasSuffix(typeURL, "/store/container/Metadata") {
		return nil, fmt.Errorf("type_url %q is not the CRI container metadata", typeURL)
	}
	return value, nil
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		x |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// The part of the CRI plugin's container metadata the kubelet's hash lives in.
type metadata struct {
	Metadata struct {
		Config struct {
			Annotations map[string]string `json:"annotations"`
		}
	}
}

func storedHashes(raw []byte) (hashes, error) {
	value, err := anyValue(raw)
	if err != nil {
		return nil, err
	}
	var m metadata
	if err := json.Unmarshal(value, &m); err != nil {
		return nil, err
	}
	out := hashes{}
	for k, v := range m.Metadata.Config.Annotations {
		if k == "io.kubernetes.container.hash" {
			out["hash"] = v
		} else if k == "io.kubernetes.container.hashWithoutResources" {
			out["hashWithoutResources"] = v
		}
	}
	return out, nil
}

func escape(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0 {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

func walk(b *bolt.Bucket, prefix string, out map[string]string) error {
	return b.ForEach(func(k, v []byte) error {
		path := prefix + escape(k)
		if v == nil {
			out[path] = "bucket"
			return walk(b.Bucket(k), path+"/", out)
		}
		sum := sha256.Sum256(v)
		out[path] = hex.EncodeToString(sum[:])
		return nil
	})
}

func inspect(tx *bolt.Tx, namespace string, tree bool, r *report) error {
	r.Txid = int(tx.ID())
	for err := range tx.Check() {
		r.Check = append(r.Check, err.Error())
	}
	if v1 := tx.Bucket([]byte("v1")); v1 != nil {
		if ns := v1.Bucket([]byte(namespace)); ns != nil {
			if containers := ns.Bucket([]byte("containers")); containers != nil {
				err := containers.ForEach(func(id, v []byte) error {
					if v != nil {
						return nil
					}
					ext := containers.Bucket(id).Bucket([]byte("extensions"))
					if ext == nil {
						return nil
					}
					raw := ext.Get([]byte(extensionKey))
					if raw == nil {
						return nil
					}
					h, err := storedHashes(raw)
					if err != nil {
						r.Undecoded = append(r.Undecoded, string(id))
						return nil
					}
					r.Hashes[string(id)] = h
					return nil
				})
				if err != nil {
					return err
				}
			}
		}
	}
	if tree {
		// The root through a cursor: bbolt itself only puts buckets there, but a file may hold values.
		r.Tree = map[string]string{}
		c := tx.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v != nil {
				sum := sha256.Sum256(v)
				r.Tree[escape(k)] = hex.EncodeToString(sum[:])
				continue
			}
			r.Tree[escape(k)] = "bucket"
			if err := walk(tx.Bucket(k), escape(k)+"/", r.Tree); err != nil {
				return err
			}
		}
	}
	return nil
}

func run(file, namespace string, tree bool, r *report) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bbolt panicked: %v", p)
		}
	}()
	db, err := bolt.Open(file, 0600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	r.Opened = true
	return db.View(func(tx *bolt.Tx) error { return inspect(tx, namespace, tree, r) })
}

func main() {
	namespace := flag.String("namespace", "k8s.io", "the containerd namespace of the CRI plugin")
	tree := flag.Bool("tree", false, "also print a digest of every key of the file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: bbolt-check [-namespace NS] [-tree] FILE")
		os.Exit(64)
	}
	r := report{File: flag.Arg(0), Check: []string{}, Hashes: map[string]hashes{}, Undecoded: []string{}}
	status := 0
	if err := run(r.File, *namespace, *tree, &r); err != nil {
		r.Error = err.Error()
		status = 2
	} else if len(r.Check) > 0 {
		status = 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		os.Exit(3)
	}
	os.Exit(status)
}
