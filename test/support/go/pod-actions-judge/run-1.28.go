// computePodActions of 1.28-1.31: a context; the next init container as a pointer (SidecarContainers
// off) or InitContainersToStart (on). With InPlacePodVerticalScaling on it asks the runtime for the
// pod's status again and keeps the one it was given when that fails: the runtime here always fails.
package kuberuntime

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// judgeRuntime answers the one call GetPodStatus makes first with an error (any other would panic).
type judgeRuntime struct{ internalapi.RuntimeService }

func (judgeRuntime) ListPodSandbox(context.Context, *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	return nil, errors.New("the judged pod's status is the case's")
}

func judgeRun(c *judgeCase, pod *v1.Pod, status *kubecontainer.PodStatus, liveness, startup proberesults.Manager) judgeAnswer {
	m := &kubeGenericRuntimeManager{
		livenessManager:   liveness,
		startupManager:    startup,
		internalLifecycle: cm.NewFakeInternalContainerLifecycle(),
		runtimeService:    judgeRuntime{},
	}
	p := m.computePodActions(context.Background(), pod, status)
	a := judgeAnswer{
		KillPod:           p.KillPod,
		CreateSandbox:     p.CreateSandbox,
		Attempt:           p.Attempt,
		InitToStart:       judgeNames(pod.Spec.InitContainers, p.InitContainersToStart),
		ContainersToStart: judgeNames(pod.Spec.Containers, p.ContainersToStart),
		EphemeralToStart:  judgeEphemeralNames(pod, p.EphemeralContainersToStart),
		ContainersToKill:  judgeKilled(p.ContainersToKill),
	}
	if p.NextInitContainerToStart != nil {
		a.InitToStart = append(a.InitToStart, p.NextInitContainerToStart.Name)
	}
	return a
}
