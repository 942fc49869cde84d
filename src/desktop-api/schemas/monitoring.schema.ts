/** `POST /api/monitoring/start|stop`. A client names an interface, never a file. */
import { z } from 'zod';

export const monitoringStartBody = z.strictObject({
  /** Interface name, e.g. `eth0`; omitted = restart the last (or configured) source. */
  interface: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,64}$/, { message: 'expected an interface name (letters, digits, . _ : @ -)' })
    .optional(),
  /** BPF filter expression. */
  filter: z
    .string()
    .max(1024)
    .regex(/^[\x20-\x7e]*$/, { message: 'expected printable ASCII' })
    .optional(),
});

export type MonitoringStartBody = z.infer<typeof monitoringStartBody>;

/** One capture device (`GET /api/monitoring/interfaces`), as libpcap lists it. */
export const captureInterfaceSchema = z.object({
  name: z.string(),
  description: z.string(),
  addresses: z.array(z.string()),
  loopback: z.boolean(),
  up: z.boolean(),
  running: z.boolean(),
  wireless: z.boolean(),
});

export const interfaceListSchema = z.object({ interfaces: z.array(captureInterfaceSchema) });

export type InterfaceList = z.infer<typeof interfaceListSchema>;
