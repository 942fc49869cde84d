/**
 * docs/fleet/: the Filebeat and Vector configurations docs/fleet.md gives. Neither tool can be installed on this
 * project's machines (no Debian or npm package), so they cannot check them here (`filebeat test config`,
 * `vector validate`); this test parses them and checks what they say about Vigil: the EVE file and its rotated file,
 * the Suricata module, JSON parsing of each line, an Elasticsearch/OpenSearch output.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { loadEveConfig } from '../../../src/config/eve.js';
import { eveTimestamp } from '../../../src/export/eve-records.js';
import { ROOT } from '../../helpers/setup.js';

const load = (name: string): Record<string, any> => yaml.load(readFileSync(path.join(ROOT, 'docs', 'fleet', name), 'utf8')) as Record<string, any>;
const EVE = loadEveConfig({ VIGIL_EVE_FILE: '/var/log/vigil/eve.json' });

describe('docs/fleet configurations', () => {
  it('filebeat.yml: the Suricata module reads the EVE file and its newest rotated file, and outputs to Elasticsearch', () => {
    const fb = load('filebeat.yml');
    const modules = fb['filebeat.modules'] as Array<Record<string, any>>;
    expect(modules).to.have.length(1);
    expect(modules[0]!.module).to.equal('suricata');
    expect(modules[0]!.eve.enabled).to.equal(true);
    expect(modules[0]!.eve['var.paths']).to.deep.equal([EVE.file, `${EVE.file}.1`]);
    expect(fb['output.elasticsearch'].hosts).to.be.an('array').with.length(1);
  });

  it('vector.yaml: file source on the same files -> remap parsing each line as JSON with its EVE timestamp -> elasticsearch', () => {
    const v = load('vector.yaml');
    expect(v.sources.vigil_eve).to.deep.include({ type: 'file', include: [EVE.file, `${EVE.file}.1`] });
    expect(v.transforms.vigil_parse.type).to.equal('remap');
    expect(v.transforms.vigil_parse.inputs).to.deep.equal(['vigil_eve']);
    const vrl = v.transforms.vigil_parse.source as string;
    expect(vrl).to.contain('parse_json!(.message)');
    // The strftime pattern given to parse_timestamp covers what Vigil writes: seconds, a fraction, a +hhmm offset.
    expect(vrl).to.contain('format: "%Y-%m-%dT%H:%M:%S%.f%z"');
    expect(eveTimestamp(Date.UTC(2026, 10, 27, 10, 0, 0, 123) + 0.456)).to.equal('2026-11-27T10:00:00.123456+0000');
    expect(v.sinks.siem).to.deep.include({ type: 'elasticsearch', inputs: ['vigil_parse'], mode: 'bulk' });
  });
});
