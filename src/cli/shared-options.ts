/**
 * The option and operand definitions several command modules share, in a module of their own so
 * no command module imports another's (`--feature-gates` has its reader and lives in `feature-gates.ts`).
 */
import type { OptionDef } from './command.js';

/** The input files of hash, preimage, changed, translate, identify, explain. */
export const FILES_OPERAND = {
  name: 'FILE',
  description: 'JSON or YAML: containers, Pods, workloads, Lists, several documents; - for standard input',
  count: 'many',
} as const;

/** `-k`: one kubelet release, as the kubelet names itself. */
export const KUBELET_VERSION: OptionDef = {
  type: 'string',
  short: 'k',
  value: 'VERSION',
  description:
    'kubelet version: 1.29, v1.29.4, 1.29.4-eks-…, or what `kubelet --version` prints ("Kubernetes v1.29.7"); a patch selects the Go toolchain that built it',
};

/** `-c`: one container of the input. */
export const CONTAINER: OptionDef = {
  type: 'string',
  short: 'c',
  value: 'NAME',
  description: 'only the container with this name',
};
