/** The kubelet's `--container-runtime-endpoint` (or `containerRuntimeEndpoint`) as a socket path. */
import { OptionError } from '../errors.js';

/** `unix:///run/containerd/containerd.sock` or a bare absolute path → the socket's path. */
export function socketOfEndpoint(endpoint: string): string {
  const path = endpoint.startsWith('unix://') ? endpoint.slice('unix://'.length) : endpoint;
  if (!path.startsWith('/'))
    throw new OptionError(
      'INVALID_OPTION',
      ['runtimeEndpoint'],
      'a unix socket: unix:///path/to.sock or /path/to.sock (the kubelet --container-runtime-endpoint)',
      `got ${JSON.stringify(endpoint)}`,
    );
  return path;
}
