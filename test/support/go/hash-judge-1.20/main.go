// hash-judge-1.20: the container hash exactly as kubelet 1.20 computes it, from the real code.
//
// Built inside Kubernetes 1.20.2's own source tree (Debian bookworm's kubernetes source package),
// so k8s.io/api is the real 1.20 v1.Container, go-spew is the vendored one and the hash is the
// kubelet's own kubecontainer.HashContainer (json.Marshal, then pkg/util/hash.DeepHashObject).
//
// Protocol: one container per line on stdin (JSON, as the apiserver would be sent it); for each, one
// line on stdout: {"hash":"<hex>"} or {"error":"<why Go refused>"}. Output is flushed whenever the
// input runs dry, so a caller may write a batch and then read as many lines back.
//
// The decode path is the kubelet's as the oracle models it: encoding/json into v1.Container, then
// one json.Marshal -> json.Unmarshal round trip (what the apiserver stores and serves back).
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strconv"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

type answer struct {
	Hash  string `json:"hash,omitempty"`
	Error string `json:"error,omitempty"`
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
	return answer{Hash: strconv.FormatUint(kubecontainer.HashContainer(&served), 16)}
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
