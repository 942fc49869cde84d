/** loadNotifyConfig(): webhook URLs and syslog targets read from the environment, errors naming the variable. */
import { expect } from 'chai';
import { loadNotifyConfig } from '../../../src/config/notify.js';
import { ConfigError } from '../../../src/errors.js';

/** The ConfigError `load` throws (fails the test when it throws none). */
function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('no ConfigError thrown');
}

describe('loadNotifyConfig()', () => {
  it('reads VIGIL_WEBHOOK_URLS with format prefixes', () => {
    const c = loadNotifyConfig({ VIGIL_WEBHOOK_URLS: 'https://example.org/hook, slack+https://hooks.slack.com/services/T/B/X' });
    expect(c.webhooks).to.deep.equal([
      { format: 'generic', url: 'https://example.org/hook' },
      { format: 'slack', url: 'https://hooks.slack.com/services/T/B/X' },
    ]);
  });

  it('names VIGIL_WEBHOOK_URLS for a URL it cannot use, showing its scheme and host but never its path (the credential)', () => {
    const ftp = configError(() => loadNotifyConfig({ VIGIL_WEBHOOK_URLS: 'ftp://hooks.example.net/services/T0/B0/s3cr3t' }));
    expect(ftp.message).to.include('VIGIL_WEBHOOK_URLS');
    expect(ftp.message).to.include('"ftp://hooks.example.net/..."');
    expect(ftp.message).to.not.include('s3cr3t');
    const bad = configError(() => loadNotifyConfig({ VIGIL_WEBHOOK_URLS: 'https://exa mple.org/t/s3cr3t' }));
    expect(bad.message).to.include('"https://exa mple.org/..."').and.not.include('s3cr3t');
    expect(configError(() => loadNotifyConfig({ VIGIL_WEBHOOK_URLS: 's3cr3t' })).message)
      .to.include('(not a URL)')
      .and.not.include('s3cr3t');
    const prefix = configError(() => loadNotifyConfig({ VIGIL_WEBHOOK_URLS: 'slak+https://hooks.slack.com/services/T/B/s3cr3t' }));
    expect(prefix.message).to.include('unknown format prefix "slak+"').and.not.include('s3cr3t');
  });
});
