// pod-actions-judge: runs one release's own computePodActions (pkg/kubelet/kuberuntime, an unexported
// method) over cases read from stdin, one JSON object a line, and writes one JSON answer a line.
// The work is done by judge.go and a release adapter (release-*.go), which the build adds to the
// release's kuberuntime package (go build -overlay: the module cache and the 1.20 tree stay as they
// are); this file only carries the lines. See .ci/provision/47-pod-actions-judges.sh.
package main

import (
	"bufio"
	"fmt"
	"os"

	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		answer, err := kuberuntime.KubeletHashJudgePodActions(in.Bytes())
		if err != nil {
			fmt.Fprintf(os.Stderr, "pod-actions-judge: %v\n", err)
			os.Exit(1)
		}
		out.Write(answer)
		out.WriteByte('\n')
		// One answer per case, at once: the caller writes the next case when it has read this one.
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "pod-actions-judge: %v\n", err)
		os.Exit(1)
	}
}
