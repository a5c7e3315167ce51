/**
 * The apiserver's imagePullPolicy default: `Always` when `ParseImageName` reports tag `latest`
 * (written, or implied by a reference with neither tag nor digest), else `IfNotPresent` — also
 * when the reference does not parse (the error is ignored upstream). ParseImageName is
 * `reference.ParseNormalizedNamed` of docker/distribution; its grammar is restated here.
 */

// distribution/reference grammar (reference/regexp.go).
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]*)';
const NAME_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${NAME_COMPONENT}(?:/${NAME_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`,
);
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** reference.NameTotalLengthMax */
const NAME_MAX = 255;
/** go-digest's registered algorithms and their hex lengths (validated by digest.Parse). */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** The tag ParseImageName reports, or null where it returns an error. */
export function imageTag(image: string): string | null {
  if (IDENTIFIER.test(image)) return null; // a bare image ID is refused as a name
  // splitDockerDomain: the first component is a registry only if it looks like one.
  const slash = image.indexOf('/');
  let domain = 'docker.io';
  let remainder = image;
  if (slash !== -1) {
    const first = image.slice(0, slash);
    if (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first) {
      domain = first;
      remainder = image.slice(slash + 1);
    }
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  const colon = remainder.indexOf(':');
  const remoteName = colon === -1 ? remainder : remainder.slice(0, colon);
  if (remoteName.toLowerCase() !== remoteName) return null; // repository name must be lowercase
  const m = REFERENCE.exec(`${domain}/${remainder}`);
  if (m === null) return null;
  if ((m[1] ?? '').length > NAME_MAX) return null;
  const digest = m[3];
  if (digest !== undefined && !validDigest(digest)) return null;
  const tag = m[2] ?? '';
  return tag === '' && digest === undefined ? 'latest' : tag;
}

function validDigest(digest: string): boolean {
  const sep = digest.indexOf(':');
  const hex = digest.slice(sep + 1);
  const want = DIGEST_HEX_LENGTH[digest.slice(0, sep)];
  return want !== undefined && hex.length === want && /^[a-f0-9]+$/.test(hex);
}

/** SetDefaults_Container's imagePullPolicy for `image` (a non-string image parses as an error). */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  return typeof image === 'string' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}
