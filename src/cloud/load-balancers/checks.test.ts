// The pure rules of listeners, pools, monitors, members and L7 rules.
import { describe, expect, it } from 'vitest';
import {
  canonicalCidrs,
  isRedirectUrl,
  listenerMisfits,
  memberMisfits,
  monitorMisfits,
  poolMisfits,
  poolProtocolMisfit,
  ruleMisfits,
  transportOf,
} from './checks.js';

const fields = (errors: { path: (string | number)[] }[]) => errors.map((e) => e.path.join('.'));

describe('listeners and pools', () => {
  it('pairs listener and pool protocols as the provider does', () => {
    expect(poolProtocolMisfit('HTTP', 'HTTP', ['protocol'])).toEqual([]);
    expect(poolProtocolMisfit('TCP', 'HTTPS', ['protocol'])).toEqual([]);
    expect(poolProtocolMisfit('HTTPS', 'TCP', ['protocol'])).toEqual([]);
    expect(fields(poolProtocolMisfit('TERMINATED_HTTPS', 'HTTPS', ['protocol']))).toEqual(['protocol']);
    expect(poolProtocolMisfit('UDP', 'TCP', ['p'])[0].message).toMatch(/sends traffic to UDP pools/);
    expect(poolProtocolMisfit('PROMETHEUS', 'HTTP', ['p'])[0].message).toMatch(/has no pools/);
    expect([transportOf('UDP'), transportOf('TERMINATED_HTTPS')]).toEqual(['udp', 'tcp']);
  });

  it('checks listener fields against the protocol', () => {
    expect(listenerMisfits({ protocol: 'TERMINATED_HTTPS', secret_id: 'x' }, [])).toEqual([]);
    expect(fields(listenerMisfits({ protocol: 'TERMINATED_HTTPS' }, ['l']))).toEqual(['l.secret_id']);
    expect(fields(listenerMisfits({ protocol: 'TCP', secret_id: 'x', sni_secret_id: ['y'], insert_x_forwarded: true }, []))).toEqual([
      'secret_id',
      'sni_secret_id',
      'insert_x_forwarded',
    ]);
    expect(fields(listenerMisfits({ protocol: 'PROMETHEUS', user_list: [{ username: 'a' }, { username: 'a' }] }, []))).toEqual(['user_list.1.username']);
    expect(fields(listenerMisfits({ protocol: 'UDP', timeout_member_data: 5, timeout_client_data: null }, []))).toEqual(['timeout_member_data']);
    expect(fields(listenerMisfits({ protocol: 'HTTP', allowed_cidrs: ['10.0.0.0/8', 'nope'] }, []))).toEqual(['allowed_cidrs.1']);
    expect(canonicalCidrs(['10.1.2.3/8', '10.0.0.0/8', '2001:DB8::1/32'])).toEqual(['10.0.0.0/8', '2001:db8::/32']);
  });

  it('checks persistence and TLS of pools', () => {
    expect(poolMisfits({ protocol: 'HTTP', session_persistence: { type: 'APP_COOKIE', cookie_name: 'S' } }, [])).toEqual([]);
    expect(fields(poolMisfits({ protocol: 'HTTP', session_persistence: { type: 'HTTP_COOKIE', cookie_name: 'S' } }, []))).toEqual([
      'session_persistence.cookie_name',
    ]);
    expect(fields(poolMisfits({ protocol: 'TCP', session_persistence: { type: 'HTTP_COOKIE' } }, []))).toEqual(['session_persistence.type']);
    expect(
      poolMisfits({ protocol: 'UDP', session_persistence: { type: 'SOURCE_IP', persistence_timeout: 60, persistence_granularity: '255.255.255.0' } }, []),
    ).toEqual([]);
    expect(fields(poolMisfits({ protocol: 'UDP', session_persistence: { type: 'SOURCE_IP', persistence_granularity: '255.0.255.0' } }, []))).toEqual([
      'session_persistence.persistence_granularity',
    ]);
    expect(fields(poolMisfits({ protocol: 'TCP', session_persistence: { type: 'SOURCE_IP', persistence_timeout: 60 } }, []))).toEqual([
      'session_persistence.persistence_timeout',
    ]);
    expect(fields(poolMisfits({ protocol: 'HTTPS', crl_secret_id: 'c' }, []))).toEqual(['crl_secret_id']);
    expect(fields(poolMisfits({ protocol: 'HTTP', secret_id: 's' }, []))).toEqual(['secret_id']);
  });
});

describe('monitors, members and L7 rules', () => {
  const monitor = { type: 'HTTP' as const, delay: 10, timeout: 5 };
  it('checks monitors against their pool', () => {
    expect(monitorMisfits({ ...monitor, expected_codes: '200,202,300-302', http_version: '1.1', domain_name: 'a.example' }, 'HTTP', [])).toEqual([]);
    expect(fields(monitorMisfits({ ...monitor, timeout: 10 }, 'HTTP', []))).toEqual(['timeout']);
    expect(fields(monitorMisfits({ ...monitor, domain_name: 'a.example' }, 'HTTP', []))).toEqual(['domain_name']);
    expect(fields(monitorMisfits({ ...monitor, expected_codes: '2xx' }, 'HTTP', []))).toEqual(['expected_codes']);
    expect(fields(monitorMisfits({ ...monitor, expected_codes: '700' }, 'HTTP', []))).toEqual(['expected_codes']);
    expect(fields(monitorMisfits({ ...monitor, url_path: '/a//b' }, 'HTTP', []))).toEqual(['url_path']);
    expect(fields(monitorMisfits({ ...monitor, type: 'TCP', http_method: 'GET' }, 'TCP', []))).toEqual(['http_method']);
    expect(fields(monitorMisfits({ ...monitor, type: 'UDP-CONNECT' }, 'TCP', []))).toEqual(['type']);
    expect(fields(monitorMisfits({ ...monitor, type: 'TLS-HELLO' }, 'UDP', []))).toEqual(['type']);
    expect(monitorMisfits({ ...monitor, type: 'UDP-CONNECT' }, 'UDP', [])).toEqual([]);
  });

  it('checks member addresses', () => {
    expect(memberMisfits({ address: '10.0.0.5', monitor_address: 'fd00::1' }, [])).toEqual([]);
    expect(fields(memberMisfits({ address: '10.0.0.256', monitor_address: 'x' }, ['m']))).toEqual(['m.address', 'm.monitor_address']);
  });

  it('checks L7 rules by type and comparison', () => {
    expect(ruleMisfits({ type: 'HEADER', compare_type: 'EQUAL_TO', value: 'a b', key: 'X-A' }, [])).toEqual([]);
    expect(ruleMisfits({ type: 'SSL_VERIFY_RESULT', compare_type: 'EQUAL_TO', value: '0' }, [])).toEqual([]);
    expect(fields(ruleMisfits({ type: 'SSL_VERIFY_RESULT', compare_type: 'EQUAL_TO', value: 'ok' }, []))).toEqual(['value']);
    expect(fields(ruleMisfits({ type: 'HOST_NAME', compare_type: 'EQUAL_TO', value: 'a b' }, []))).toEqual(['value']);
    expect(fields(ruleMisfits({ type: 'HEADER', compare_type: 'REGEX', value: '[' }, []))).toEqual(['key', 'value']);
    expect(isRedirectUrl('https://example.com/a?b')).toBe(true);
    expect(isRedirectUrl('javascript:alert(1)')).toBe(false);
    expect(isRedirectUrl('/relative')).toBe(false);
  });
});
