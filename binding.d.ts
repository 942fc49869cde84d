/**
 * The raw surface of the native addon (`build/Release/vigil.node`), exactly as C++ exposes it. Only
 * `src/native/load.ts` loads the addon; the rest of `src/` uses the typed wrappers in `src/native/`.
 * Test-only exports start with `_`.
 */
export declare namespace Binding {
  /** `DecodeStatusName()` values from native/decode/packet_view.h (keys of `decodeErrors`). */
  type DecodeStatusName =
    | 'ok'
    | 'unsupported_link_type'
    | 'truncated_l2'
    | 'non_ip'
    | 'truncated_ip'
    | 'bad_ip_version'
    | 'bad_ip_header_length'
    | 'bad_ip_total_length'
    | 'bad_ipv6_ext_header'
    | 'truncated_l4'
    | 'bad_tcp_header_length'
    | 'bad_udp_length'
    | 'fragment_no_flow';

  /** One decoded frame: the C++ `PacketView` with addresses as text (see native/decode/packet_view.h). */
  interface DecodedPacket {
    status: DecodeStatusName;
    /** VLAN ids kept (outermost first, at most 2); `vlanDepth` counts every tag seen. */
    vlan: number[];
    vlanDepth: number;
    /** 4 or 6; 0 when no IP header was decoded. */
    ipVersion: number;
    /** Dotted quad for IPv4, RFC 5952 text for IPv6, '' when absent. */
    src: string;
    dst: string;
    /** IANA protocol number after the IPv6 extension headers. */
    protocol: number;
    ttl: number;
    /** IP-layer bytes from the length fields (padding excluded; frame length for TSO / jumbograms). */
    ipBytes: number;
    /** IPv4 header with options, or IPv6 fixed + extension headers (bytes). */
    l3HeaderBytes: number;
    isFragment: boolean;
    isFirstFragment: boolean;
    /** IPv4 identification or IPv6 fragment identification. */
    fragId: number;
    hasPorts: boolean;
    /** TCP/UDP ports; ICMP/ICMPv6 type in `srcPort` and code in `dstPort`. */
    srcPort: number;
    dstPort: number;
    tcpFlags: number;
    /** Raw (unscaled) TCP window. */
    tcpWindow: number;
    l4HeaderBytes: number;
    /** L4 payload bytes per the length fields. */
    payloadBytes: number;
    caplen: number;
    wirelen: number;
  }

  interface Addon {
    /** Version of the native core. */
    coreVersion: string;
    /**
     * Test-only: decodes one frame of the given DLT/LINKTYPE (`wirelen` defaults to the frame's length).
     * Throws TypeError on bad arguments; malformed frames are reported through `status`, never thrown.
     */
    _decodePacket(linkType: number, frame: Uint8Array, wirelen?: number): DecodedPacket;
  }
}
