/**
 * A generated PodList of about `mb` MB, as `kubectl get pods -A -o json` prints it: pods as the
 * apiserver serves them (defaults applied, service-account token mounted, a status), two
 * containers each, varied so that specs differ. `handWritten`: the same pods as a person writes
 * them (no apiserver defaults, no token mount, no uid or status), which the CLI warns about.
 */
export function bigPodList(mb: number, handWritten = false): { text: string; pods: number } {
  const items: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const app = ['web', 'api', 'worker', 'cache', 'metrics'][i % 5]!;
    const served = (name: string, image: string, extra: Record<string, unknown>) => ({
      name,
      image,
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: { limits: { cpu: `${(i % 4) + 1}`, memory: `${128 * ((i % 3) + 1)}Mi` }, requests: { cpu: '100m' } },
      volumeMounts: [
        {
          name: `kube-api-access-${i % 97}`,
          mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
          readOnly: true,
        },
      ],
      ...extra,
    });
    const written = (name: string, image: string, extra: Record<string, unknown>) => ({
      name,
      image,
      resources: { limits: { cpu: `${(i % 4) + 1}`, memory: `${128 * ((i % 3) + 1)}Mi` }, requests: { cpu: '100m' } },
      ...extra,
    });
    const container = handWritten ? written : served;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${app}-${i.toString(16).padStart(6, '0')}`,
        namespace: ['default', 'shop', 'infra'][i % 3],
        ...(handWritten ? {} : { uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}` }),
        labels: { app, 'pod-template-hash': (i % 1000).toString(16) },
      },
      spec: {
        nodeName: `node-${i % 50}`,
        containers: [
          container(app, `registry.example.com/team/${app}:1.${i % 7}.${i % 3}`, {
            ports: [{ containerPort: 8080 + (i % 3), name: 'http', protocol: 'TCP' }],
            env: Array.from({ length: 3 + (i % 4) }, (_, k) => ({ name: `ENV_${k}`, value: `v${k}-${i % 11}` })),
          }),
          container('log-shipper', 'registry.example.com/infra/shipper:2.4.1', { args: ['--format=json'] }),
        ],
        restartPolicy: 'Always',
        serviceAccountName: 'default',
      },
      ...(handWritten ? {} : { status: { phase: 'Running' } }),
    };
    const text = JSON.stringify(pod, null, 2);
    items.push(text);
    size += text.length + 2;
  }
  return { text: `{"apiVersion":"v1","kind":"List","items":[\n${items.join(',\n')}\n]}\n`, pods: items.length };
}
