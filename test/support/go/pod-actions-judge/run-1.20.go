// computePodActions of 1.20: no context, the next init container as a pointer.
package kuberuntime

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

func judgeRun(c *judgeCase, pod *v1.Pod, status *kubecontainer.PodStatus, liveness, startup proberesults.Manager) judgeAnswer {
	m := &kubeGenericRuntimeManager{
		livenessManager:   liveness,
		startupManager:    startup,
		internalLifecycle: cm.NewFakeInternalContainerLifecycle(),
	}
	p := m.computePodActions(pod, status)
	a := judgeAnswer{
		KillPod:           p.KillPod,
		CreateSandbox:     p.CreateSandbox,
		Attempt:           p.Attempt,
		InitToStart:       []string{},
		ContainersToStart: judgeNames(pod.Spec.Containers, p.ContainersToStart),
		EphemeralToStart:  judgeEphemeralNames(pod, p.EphemeralContainersToStart),
		ContainersToKill:  judgeKilled(p.ContainersToKill),
	}
	if p.NextInitContainerToStart != nil {
		a.InitToStart = append(a.InitToStart, p.NextInitContainerToStart.Name)
	}
	return a
}
