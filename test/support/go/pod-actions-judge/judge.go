// The part of the pod-actions judge that is the same for every release: a case's pod, runtime
// status, probe results and feature gates made into the kubelet's own types, and its podActions
// written back by container name. Added to package kuberuntime by the build (never committed to a
// Kubernetes tree); the release adapter (release-*.go) supplies judgeRun and the sandbox status.
package kuberuntime

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// judgeCase is one line of input.
type judgeCase struct {
	ID int `json:"id"`
	// Gates are set before the case (each case names every gate it varies, so none leaks into the next).
	Gates map[string]bool `json:"gates"`
	// Before is the pod the containers were made from (their stored hashes), After the pod synced to.
	Before v1.Pod `json:"before"`
	After  v1.Pod `json:"after"`
	// Sandbox is the pod's newest sandbox (nil: the runtime has none).
	Sandbox *judgeSandbox `json:"sandbox"`
	// Statuses are the runtime's containers of the pod, one per container name (init, regular, ephemeral).
	Statuses []judgeStatus `json:"statuses"`
	// AllContainersRestarting is that condition (True) in the pod's last API status (1.35+), from
	// which the release's own helpers derive computePodActions' restartAllContainers.
	AllContainersRestarting bool `json:"allContainersRestarting"`
}

type judgeSandbox struct {
	Ready bool `json:"ready"`
	HasIP bool `json:"hasIp"`
	// Attempt of the newest sandbox (its metadata).
	Attempt uint32 `json:"attempt"`
}

type judgeStatus struct {
	Name string `json:"name"`
	// running, exited, created or unknown.
	State    string `json:"state"`
	ExitCode int    `json:"exitCode"`
	// Probe results in the prober's cache: "", "success" or "failure".
	Liveness string `json:"liveness"`
	Startup  string `json:"startup"`
}

// judgeAnswer is podActions by container name.
type judgeAnswer struct {
	ID                  int      `json:"id"`
	KillPod             bool     `json:"killPod"`
	CreateSandbox       bool     `json:"createSandbox"`
	Attempt             uint32   `json:"attempt"`
	InitToStart         []string `json:"initToStart"`
	ContainersToStart   []string `json:"containersToStart"`
	EphemeralToStart    []string `json:"ephemeralToStart"`
	ContainersToKill    []string `json:"containersToKill"`
	ContainersToReset   []string `json:"containersToReset"`
	ContainersResetKill []string `json:"containersResetKill"`
}

// The kubelet's logs (a missing resource record is logged as an error on every case) are not answers.
func init() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// KubeletHashJudgePodActions answers one case (a line of JSON) with one line of JSON.
func KubeletHashJudgePodActions(line []byte) ([]byte, error) {
	var c judgeCase
	if err := json.Unmarshal(line, &c); err != nil {
		return nil, fmt.Errorf("case: %w", err)
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(c.Gates); err != nil {
		return nil, fmt.Errorf("case %d: gates: %w", c.ID, err)
	}
	pod := &c.After
	status := &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}
	if c.Sandbox != nil {
		status.SandboxStatuses = append(status.SandboxStatuses, judgeSandboxStatus(pod, c.Sandbox))
	}
	liveness, startup := proberesults.NewManager(), proberesults.NewManager()
	for _, s := range c.Statuses {
		before := judgeContainer(&c.Before, s.Name)
		if before == nil {
			return nil, fmt.Errorf("case %d: %s is not in the pod before", c.ID, s.Name)
		}
		st := &kubecontainer.Status{
			ID:       kubecontainer.ContainerID{Type: "containerd", ID: "id-" + s.Name},
			Name:     s.Name,
			ExitCode: s.ExitCode,
		}
		switch s.State {
		case "running":
			st.State = kubecontainer.ContainerStateRunning
		case "exited":
			st.State = kubecontainer.ContainerStateExited
		case "created":
			st.State = kubecontainer.ContainerStateCreated
		case "unknown":
			st.State = kubecontainer.ContainerStateUnknown
		default:
			return nil, fmt.Errorf("case %d: %s: state %q", c.ID, s.Name, s.State)
		}
		judgeHash(st, before)
		for _, p := range []struct {
			m      proberesults.Manager
			result string
		}{{liveness, s.Liveness}, {startup, s.Startup}} {
			switch p.result {
			case "":
			case "success":
				p.m.Set(st.ID, proberesults.Success, pod)
			case "failure":
				p.m.Set(st.ID, proberesults.Failure, pod)
			default:
				return nil, fmt.Errorf("case %d: %s: probe result %q", c.ID, s.Name, p.result)
			}
		}
		status.ContainerStatuses = append(status.ContainerStatuses, st)
	}
	a := judgeRun(&c, pod, status, liveness, startup)
	a.ID = c.ID
	if a.ContainersToReset == nil { // before 1.35: no reset
		a.ContainersToReset, a.ContainersResetKill = []string{}, []string{}
	}
	for _, list := range [][]string{a.ContainersToKill, a.ContainersToReset, a.ContainersResetKill} {
		sort.Strings(list)
	}
	return json.Marshal(a)
}

// judgeContainer finds a container of the pod by name, in any of its three lists.
func judgeContainer(pod *v1.Pod, name string) *v1.Container {
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			return (*v1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		}
	}
	return nil
}

// judgeNames maps indexes of a container list to names.
func judgeNames(list []v1.Container, indexes []int) []string {
	out := []string{}
	for _, i := range indexes {
		out = append(out, list[i].Name)
	}
	return out
}

func judgeEphemeralNames(pod *v1.Pod, indexes []int) []string {
	out := []string{}
	for _, i := range indexes {
		out = append(out, pod.Spec.EphemeralContainers[i].Name)
	}
	return out
}

// judgeKilled lists the names of ContainersToKill.
func judgeKilled(kill map[kubecontainer.ContainerID]containerToKillInfo) []string {
	out := []string{}
	for _, info := range kill {
		out = append(out, info.name)
	}
	return out
}
