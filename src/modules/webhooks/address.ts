import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to its addresses (injectable: tests resolve without DNS). */
export type Resolve = (host: string) => Promise<string[]>;

export const resolveWithDns: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface AddressRules {
  allowPrivateNetworks: boolean;
  requireHttps: boolean;
  resolve: Resolve;
}

/**
 * Why a webhook URL may not be used, or undefined when it may: it must be http(s) (https in
 * production) and its host must resolve to public unicast addresses only, unless private networks
 * are allowed. The same rule (ipaddr.js's `unicast` range) guards each connection at delivery,
 * where request-filtering-agent checks the address actually connected to, as DNS may have changed.
 */
export async function refusedUrl(text: string, rules: AddressRules): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (rules.requireHttps && url.protocol !== 'https:') return 'must be an https URL in production';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (rules.allowPrivateNetworks) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : await rules.resolve(host);
  } catch {
    return `its host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `its host ${host} does not resolve`;
  for (const address of addresses) {
    const range = ipaddr.process(address).range();
    if (range !== 'unicast') return `its host ${host} is a non-public address (${address}, ${range}); webhooks go to public addresses only`;
  }
  return undefined;
}
