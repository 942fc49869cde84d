/**
 * Desktop notifications by command where no library fits: macOS through `osascript` (AppleScript's `display
 * notification`, which has no click action), Windows through a PowerShell script that shows a toast
 * (Windows.UI.Notifications) whose click opens the dashboard through the `protocol` activation. Each builder returns
 * the exact program and argument list, run without a shell; user text travels as arguments (macOS) or XML-escaped
 * inside a base64 `-EncodedCommand` (Windows), never spliced into code unescaped.
 */
import { execFile, spawn } from 'node:child_process';
import type { DesktopNotification, NotificationBackend } from './desktop-notifier.js';

/** A program and its arguments. */
export interface Command {
  file: string;
  args: string[];
}

/** `osascript` with the title and body as `argv` of an inline script (no quoting of user text). */
export function osascriptCommand(n: DesktopNotification): Command {
  return {
    file: 'osascript',
    args: ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', n.title, n.body],
  };
}

/** Escapes text for an XML attribute or element (which also removes every `'` from the PowerShell string it sits in). */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

/** Windows PowerShell's own AppUserModelID, under which an unpackaged program may raise a toast. */
export const POWERSHELL_APP_ID = '{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe';

/** The toast's XML (ToastGeneric binding; a click launches `url` through the protocol activation). */
export function toastXml(n: DesktopNotification): string {
  const scenario = n.urgency === 'critical' ? ' scenario="urgent"' : '';
  return (
    `<toast activationType="protocol" launch="${xmlEscape(n.url)}"${scenario}>` +
    `<visual><binding template="ToastGeneric"><text>${xmlEscape(n.title)}</text><text>${xmlEscape(n.body)}</text></binding></visual>` +
    `</toast>`
  );
}

/** The PowerShell script that shows the toast. */
export function toastScript(n: DesktopNotification): string {
  return [
    '$ErrorActionPreference = "Stop"',
    '[void][Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime]',
    '[void][Windows.Data.Xml.Dom.XmlDocument, Windows.Data.Xml.Dom.XmlDocument, ContentType = WindowsRuntime]',
    '$xml = New-Object Windows.Data.Xml.Dom.XmlDocument',
    `$xml.LoadXml('${toastXml(n)}')`,
    `[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('${POWERSHELL_APP_ID}').Show([Windows.UI.Notifications.ToastNotification]::new($xml))`,
  ].join('\n');
}

/** `powershell.exe` running {@link toastScript} as UTF-16LE base64 (`-EncodedCommand`). */
export function windowsToastCommand(n: DesktopNotification): Command {
  return {
    file: 'powershell.exe',
    args: ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', Buffer.from(toastScript(n), 'utf16le').toString('base64')],
  };
}

/** `xdg-open URL` (Linux: a click on a notification opens the dashboard). */
export function xdgOpenCommand(url: string): Command {
  return { file: 'xdg-open', args: [url] };
}

/** Runs a command without a shell, at most `timeoutMs`; rejects with its stderr on failure. */
export function runCommand(c: Command, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(c.file, c.args, { timeout: timeoutMs, windowsHide: true }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${c.file}: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}

/** Starts a command and leaves it (a browser opened by xdg-open outlives it); failures are ignored. */
export function launchDetached(c: Command): void {
  const child = spawn(c.file, c.args, { detached: true, stdio: 'ignore', windowsHide: true });
  child.on('error', () => undefined);
  child.unref();
}

/** A backend that runs one command per notification (macOS, Windows). */
export class CommandBackend implements NotificationBackend {
  constructor(
    readonly name: string,
    private readonly build: (n: DesktopNotification) => Command,
    private readonly run: (c: Command) => Promise<void> = runCommand,
  ) {}

  show(n: DesktopNotification): Promise<void> {
    return this.run(this.build(n));
  }

  async close(): Promise<void> {}
}
