// hash-judge-1.36: the container hash as kubelet 1.36 computes it, over the real 1.36 types.
//
// Built in GOPATH mode against Debian's golang-k8s-api-dev 0.36.4 (k8s.io/api of Kubernetes 1.36)
// and golang-k8s-apimachinery-dev 0.36.4, with Debian's Go 1.27. Since 1.31 the kubelet hashes
// only the container's name and image: json.Marshal of {"name", "image"} (pickFieldsToHash), fed
// to FNV-1a 32 through pkg/util/hash.DeepHashObject, which since 1.30 writes
// apimachinery's dump.ForHash of the object (go-spew "%#v", the config of the older releases).
// Kubernetes' own pkg/ is not packaged in Debian, so those few lines are restated here.
//
// Protocol: as hash-judge-1.20 (one container per stdin line; {"hash"} or {"error"} per line). The
// whole container is decoded, as the kubelet decodes the whole pod: a container Go refuses is
// refused here even when its name and image are fine.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
)

type answer struct {
	Hash  string `json:"hash,omitempty"`
	Error string `json:"error,omitempty"`
}

func hashContainer(c *v1.Container) uint64 {
	picked, _ := json.Marshal(map[string]string{"name": c.Name, "image": c.Image})
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(picked))
	return uint64(h.Sum32())
}

func judge(line []byte) answer {
	var sent v1.Container
	if err := json.Unmarshal(line, &sent); err != nil {
		return answer{Error: "decode: " + err.Error()}
	}
	stored, err := json.Marshal(&sent)
	if err != nil {
		return answer{Error: "encode: " + err.Error()}
	}
	var served v1.Container
	if err := json.Unmarshal(stored, &served); err != nil {
		return answer{Error: "round trip: " + err.Error()}
	}
	return answer{Hash: strconv.FormatUint(hashContainer(&served), 16)}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if encErr := enc.Encode(judge(line)); encErr != nil {
				os.Exit(3)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			os.Exit(4)
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				os.Exit(3)
			}
		}
	}
	if err := out.Flush(); err != nil {
		os.Exit(3)
	}
}
