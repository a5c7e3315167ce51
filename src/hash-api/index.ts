/** The hashing API: what a kubelet of a given release computes for a container. */
export {
  hashContainer,
  hashContainerWithoutResources,
  preimage,
  validateContainer,
  type ContainerInput,
  type KubeletOptions,
  type Preimage,
} from './hash.js';
export type { HashOptions } from '../hash/options.js';
