/**
 * Names of DCE-RPC operations by (interface, opnum), for the interfaces the capture core names (native/app/dcerpc.cpp):
 * the operations detection and people reading an alert care about. Opnums are from the interfaces' Microsoft
 * protocol specifications (MS-SCMR 3.1.4, MS-TSCH 3.2.5, MS-NRPC 3.5.4, MS-RRP 3.1.5, MS-DRSR 4.1, MS-EVEN 3.1.4,
 * MS-SAMR 3.1.5, MS-LSAD 3.1.4, MS-SRVS 3.1.4, MS-WKST 3.2.4, C706 epm); the set follows what Zeek's
 * scripts/base/protocols/dce-rpc/consts.zeek and MITRE BZAR's bzar_dce-rpc_consts.zeek name.
 */
const OPS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  svcctl: {
    0: 'CloseServiceHandle',
    1: 'ControlService',
    2: 'DeleteService',
    6: 'QueryServiceStatus',
    11: 'ChangeServiceConfigW',
    12: 'CreateServiceW',
    14: 'EnumServicesStatusW',
    15: 'OpenSCManagerW',
    16: 'OpenServiceW',
    17: 'QueryServiceConfigW',
    19: 'StartServiceW',
    23: 'ChangeServiceConfigA',
    24: 'CreateServiceA',
    27: 'OpenSCManagerA',
    28: 'OpenServiceA',
    31: 'StartServiceA',
    40: 'QueryServiceStatusEx',
    44: 'CreateServiceWOW64A',
    45: 'CreateServiceWOW64W',
  },
  atsvc: { 0: 'JobAdd', 1: 'JobDel', 2: 'JobEnum', 3: 'JobGetInfo' },
  ITaskSchedulerService: {
    0: 'SchRpcHighestVersion',
    1: 'SchRpcRegisterTask',
    2: 'SchRpcRetrieveTask',
    6: 'SchRpcEnumFolders',
    7: 'SchRpcEnumTasks',
    12: 'SchRpcRun',
    13: 'SchRpcDelete',
    19: 'SchRpcEnableTask',
  },
  sasec: { 0: 'SASetAccountInformation', 1: 'SASetNSAccountInformation', 2: 'SAGetNSAccountInformation', 3: 'SAGetAccountInformation' },
  netlogon: {
    2: 'NetrLogonSamLogon',
    4: 'NetrServerReqChallenge',
    5: 'NetrServerAuthenticate',
    6: 'NetrServerPasswordSet',
    15: 'NetrServerAuthenticate2',
    21: 'NetrLogonGetCapabilities',
    26: 'NetrServerAuthenticate3',
    29: 'NetrLogonGetDomainInfo',
    30: 'NetrServerPasswordSet2',
    39: 'NetrLogonSamLogonEx',
  },
  winreg: {
    1: 'OpenHKLM',
    6: 'BaseRegCreateKey',
    15: 'BaseRegOpenKey',
    22: 'BaseRegSetValue',
    24: 'BaseInitiateSystemShutdown',
    30: 'BaseInitiateSystemShutdownEx',
  },
  drsuapi: { 0: 'DRSBind', 1: 'DRSUnbind', 2: 'DRSReplicaSync', 3: 'DRSGetNCChanges', 12: 'DRSCrackNames' },
  eventlog: { 0: 'ElfrClearELFW', 1: 'ElfrClearELFA' },
  IEventService: { 6: 'EvtRpcClearLog' },
  epm: { 2: 'ept_lookup', 3: 'ept_map' },
  srvsvc: { 15: 'NetrShareEnum', 16: 'NetrShareGetInfo', 21: 'NetrServerGetInfo', 26: 'NetrServerTransportEnum' },
  wkssvc: { 0: 'NetrWkstaGetInfo', 2: 'NetrWkstaUserEnum' },
  samr: { 0: 'SamrConnect', 7: 'SamrOpenDomain', 13: 'SamrEnumerateUsersInDomain', 17: 'SamrLookupNamesInDomain', 64: 'SamrConnect5' },
  lsarpc: { 44: 'LsarOpenPolicy2', 76: 'LsarLookupSids3', 77: 'LsarLookupNames4' },
  InitShutdown: { 0: 'BaseInitiateShutdown', 2: 'BaseInitiateShutdownEx' },
  WindowsShutdown: { 0: 'WsdrInitiateShutdown' },
  IWbemServices: { 24: 'ExecMethod', 25: 'ExecMethodAsync' },
};

/** The operation's name (`CreateServiceW`), or null when the interface or opnum is not in the table. */
export function dcerpcOpName(iface: string | null, opnum: number): string | null {
  if (iface === null) return null;
  return OPS[iface]?.[opnum] ?? null;
}
