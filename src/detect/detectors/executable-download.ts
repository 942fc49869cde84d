/**
 * Executables downloaded under a misleading type (`malware`): a cleartext HTTP response whose body is a Windows PE,
 * an ELF or a Mach-O file (its magic bytes, `http.bodyMagic`, read by the capture core) while its Content-Type or the
 * request's file extension says it is something else: an image, a text, a document. Droppers fetch their second
 * stage this way so that proxies and people let it through.
 *
 * Learned from (logic, no rule text copied): the ET OPEN rules "ET POLICY PE EXE or DLL Windows file download HTTP"
 * (`MZ`, then `PE\0\0` at e_lfanew: the core checks the same), "ET MALWARE Likely Evil EXE download from ... non-exe
 * extension", "ET INFO Executable served as image" variants, and Suricata's `filemagic` keyword (the type by content,
 * not by name).
 *
 * An executable under an honest or generic type (application/octet-stream, application/x-msdownload, an .exe URI, no
 * type at all) raises nothing: installers and updates are downloaded that way every day (Windows Update's CAB/EXE
 * downloads over HTTP are among the benign captures), and an alert for each would teach the user to ignore this one.
 * ET ships its plain "PE download" rule in the POLICY category for the same reason.
 */
import { flowColumns } from '../../native/flow-batch.js';
import { FLOW_COLUMN as C, HTTP_BODY_MAGIC, SNAPSHOT_REASON } from '../../native/flow-columns.js';
import type { FlowRecord, HttpBodyMagic } from '../../native/flow-record.js';
import { httpOf } from '../batch-fields.js';
import type { Detector, Finding } from '../finding.js';

/** Body types that are programs. */
export const EXECUTABLE_MAGIC: ReadonlySet<HttpBodyMagic> = new Set<HttpBodyMagic>(['pe', 'elf', 'macho']);

/** {@link EXECUTABLE_MAGIC} as `httpBodyMagic` column values. */
const EXECUTABLE_MAGIC_CODES: ReadonlySet<number> = new Set([...EXECUTABLE_MAGIC].map((m) => HTTP_BODY_MAGIC.indexOf(m)));

/** Media type families a program is never honestly served as. */
const MISLEADING_TYPE_FAMILIES = ['image/', 'text/', 'audio/', 'video/', 'font/'];
/** application/* media types that name a non-executable format. */
const MISLEADING_APPLICATION_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/pdf',
  'application/msword',
  'application/rtf',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-shockwave-flash',
  'application/xhtml+xml',
  'application/rss+xml',
]);
/** URI file extensions of data, media and documents (a program named like one of these is disguised). */
export const MISLEADING_EXTENSIONS: ReadonlySet<string> = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'ico',
  'webp',
  'svg',
  'tif',
  'tiff',
  'txt',
  'log',
  'csv',
  'htm',
  'html',
  'css',
  'js',
  'json',
  'xml',
  'pdf',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'rtf',
  'mp3',
  'mp4',
  'avi',
  'mov',
  'wav',
  'ogg',
  'woff',
  'woff2',
  'ttf',
  'dat',
  'zip',
  'gz',
  'tar',
  'rar',
  '7z',
  'jar',
]);

/** The media type of a Content-Type value: lower case, without parameters; null when absent or empty. */
export function mediaType(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const t = (contentType.split(';', 1)[0] as string).trim().toLowerCase();
  return t === '' ? null : t;
}

/** The file extension of a request target's path (lower case, without the dot); null when it has none. */
export function uriExtension(uri: string | null | undefined): string | null {
  if (!uri) return null;
  let path = uri;
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) path = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, ''); // absolute form (proxies)
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = name.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,8}$/.test(ext) ? ext : null;
}

/** Why an executable's download is disguised: the misleading Content-Type and/or extension; null when it is not. */
export function disguise(contentType: string | null | undefined, uri: string | null | undefined): { type: string | null; extension: string | null } | null {
  const type = mediaType(contentType);
  const misleadingType = type !== null && (MISLEADING_TYPE_FAMILIES.some((f) => type.startsWith(f)) || MISLEADING_APPLICATION_TYPES.has(type));
  const ext = uriExtension(uri);
  const misleadingExt = ext !== null && MISLEADING_EXTENSIONS.has(ext);
  if (!misleadingType && !misleadingExt) return null;
  return { type: misleadingType ? type : null, extension: misleadingExt ? ext : null };
}

const MAX_TEXT = 200;

export class ExecutableDownloadDetector implements Detector {
  readonly name = 'executable_download';

  observe(flows: readonly FlowRecord[]): Finding[] {
    const out: Finding[] = [];
    const { cols, n } = flowColumns(flows);
    for (let i = 0; i < n; i++) {
      // Only TCP flows with an HTTP response status (the body is read with the first response); snapshots repeat.
      if (cols[C.protocol * n + i] !== 6 || !((cols[C.httpStatus * n + i] as number) >= 0) || cols[C.endReason * n + i] === SNAPSHOT_REASON) continue;
      // Only executable bodies: the HTTP fields are decoded for those alone.
      if (!EXECUTABLE_MAGIC_CODES.has(cols[C.httpBodyMagic * n + i] as number)) continue;
      const f = flows[i] as FlowRecord;
      const http = httpOf(flows, i);
      if (!http?.bodyMagic || !EXECUTABLE_MAGIC.has(http.bodyMagic)) continue;
      const why = disguise(http.contentType, http.uri);
      if (why === null) continue;
      const what = http.bodyMagic === 'pe' ? 'Windows executable' : http.bodyMagic === 'elf' ? 'ELF executable' : 'Mach-O executable';
      const as = [why.type, why.extension !== null ? `.${why.extension}` : null].filter((x) => x !== null).join(' / ');
      const host = http.host ?? f.dstIp;
      const cut = (t: string | null | undefined): string | null => (t == null ? null : t.slice(0, MAX_TEXT));
      out.push({
        category: 'malware',
        source: 'rule',
        severity: 'high',
        score: why.type !== null && why.extension !== null ? 0.9 : 0.8,
        srcIp: f.srcIp,
        srcPort: null,
        dstIp: f.dstIp,
        dstPort: f.dstPort,
        protocol: 6,
        target: `${f.dstIp}:${f.dstPort}/6`,
        threatIp: f.dstIp,
        title: `${what} downloaded as ${as} by ${f.srcIp} from ${host}`,
        description:
          `${f.srcIp} downloaded a ${what} (${http.bodyMagic} magic bytes) over cleartext HTTP from ${host} (${f.dstIp}:${f.dstPort}), ` +
          `served as ${as}: a program disguised as data, as droppers fetch their next stage.`,
        count: 1,
        firstSeenMs: f.firstSeenMs,
        lastSeenMs: f.lastSeenMs,
        details: {
          detector: 'executable_download',
          bodyMagic: http.bodyMagic,
          contentType: cut(http.contentType),
          misleadingType: why.type,
          misleadingExtension: why.extension,
          method: http.method,
          host: cut(http.host),
          uri: cut(http.uri),
          userAgent: cut(http.userAgent),
          status: http.status,
          countUnit: 'downloads',
        },
      });
    }
    return out;
  }
}
