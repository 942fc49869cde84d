import { expect } from 'chai';
import { disguise, ExecutableDownloadDetector, mediaType, uriExtension } from '../../../../src/detect/detectors/executable-download.js';
import type { FlowHttp } from '../../../../src/native/flow-record.js';
import { makeFlow } from '../flow-factory.js';

const http = (over: Partial<FlowHttp>): FlowHttp => ({
  method: 'GET',
  host: '185.98.87.185',
  uri: '/tablone.png',
  userAgent: 'Mozilla/4.0',
  status: 200,
  requests: 1,
  contentType: 'image/png',
  bodyMagic: 'pe',
  ...over,
});

describe('detect/detectors/executable-download', () => {
  it('mediaType() and uriExtension() read the parts that name a type', () => {
    expect(mediaType(' Image/PNG ; charset=binary')).to.equal('image/png');
    expect(mediaType('')).to.equal(null);
    expect(mediaType(null)).to.equal(null);
    expect(uriExtension('/tablone.png')).to.equal('png');
    expect(uriExtension('/a/b.JPG?x=1.exe#f')).to.equal('jpg');
    expect(uriExtension('http://example.com/x/86607.dat')).to.equal('dat');
    expect(uriExtension('/download')).to.equal(null);
    expect(uriExtension('/dir.v2/file')).to.equal(null);
    expect(uriExtension('/x.tar.gz')).to.equal('gz');
    expect(uriExtension(null)).to.equal(null);
  });

  it('disguise() names the misleading type and extension, and passes honest or generic ones', () => {
    expect(disguise('image/png', '/tablone.png')).to.deep.equal({ type: 'image/png', extension: 'png' });
    expect(disguise('application/octet-stream', '/86607.dat')).to.deep.equal({ type: null, extension: 'dat' });
    expect(disguise('text/plain', '/get.php?id=1')).to.deep.equal({ type: 'text/plain', extension: null });
    expect(disguise('application/json', null)).to.deep.equal({ type: 'application/json', extension: null });
    expect(disguise('application/octet-stream', '/setup.exe')).to.equal(null);
    expect(disguise('application/x-msdownload', '/files/tool')).to.equal(null);
    expect(disguise(null, '/download.php?f=1')).to.equal(null);
    expect(disguise('application/vnd.microsoft.portable-executable', '/a.msi')).to.equal(null);
  });

  it('raises malware (high) for a PE served as image/png, with the evidence', () => {
    const f = makeFlow({ srcIp: '10.9.25.101', dstIp: '185.98.87.185', dstPort: 80, app: 'http', http: http({}) });
    const out = new ExecutableDownloadDetector().observe([f]);
    expect(out).to.have.length(1);
    expect(out[0]).to.include({
      category: 'malware',
      source: 'rule',
      severity: 'high',
      srcIp: '10.9.25.101',
      dstIp: '185.98.87.185',
      target: '185.98.87.185:80/6',
      threatIp: '185.98.87.185',
      count: 1,
      title: 'Windows executable downloaded as image/png / .png by 10.9.25.101 from 185.98.87.185',
    });
    expect(out[0]!.details).to.deep.include({
      detector: 'executable_download',
      bodyMagic: 'pe',
      contentType: 'image/png',
      misleadingType: 'image/png',
      misleadingExtension: 'png',
      uri: '/tablone.png',
    });
  });

  it('raises nothing for honest executables, non-executables, snapshots or flows without a response', () => {
    const flows = [
      makeFlow({ app: 'http', http: http({ contentType: 'application/octet-stream', uri: '/setup.exe' }) }),
      makeFlow({ app: 'http', http: http({ bodyMagic: 'png' }) }),
      makeFlow({ app: 'http', http: http({ bodyMagic: 'zip', contentType: 'image/png' }) }),
      makeFlow({ app: 'http', http: http({}), endReason: 'snapshot' }),
      makeFlow({ app: 'http', http: http({ status: null }) }),
      makeFlow({ app: 'http', http: http({ bodyMagic: null }) }),
    ];
    expect(new ExecutableDownloadDetector().observe(flows)).to.deep.equal([]);
  });

  it('also flags ELF and Mach-O programs under a misleading name', () => {
    const elf = makeFlow({ app: 'http', http: http({ bodyMagic: 'elf', contentType: 'text/html', uri: '/x' }) });
    const macho = makeFlow({ app: 'http', http: http({ bodyMagic: 'macho', contentType: null, uri: '/update.jpg' }) });
    const out = new ExecutableDownloadDetector().observe([elf, macho]);
    expect(out.map((f) => f.title.split(' downloaded')[0])).to.deep.equal(['ELF executable', 'Mach-O executable']);
    expect(out.map((f) => f.details.misleadingType)).to.deep.equal(['text/html', null]);
  });
});
