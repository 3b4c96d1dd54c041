package dev.converge.provisioning.mcp;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Which addresses {@code check_url} may contact: none of the special-purpose blocks of the IANA
 * IPv4 and IPv6 registries (RFC 6890 and its updates): private, loopback, link-local, shared,
 * documentation, benchmarking, reserved, multicast and broadcast space, and the v6 prefixes that
 * embed or translate an IPv4 address (IPv4-compatible, IPv4-mapped, NAT64, 6to4, Teredo), through
 * which a v4 block would be reached by another name.
 */
final class AddressPolicy {
    private record Block(byte[] prefix, int bits) {
        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (prefix[full] & mask);
        }
    }

    private static final List<Block> DENIED = List.of(
            // IPv4
            block("0.0.0.0/8"), block("10.0.0.0/8"), block("100.64.0.0/10"), block("127.0.0.0/8"),
            block("169.254.0.0/16"), block("172.16.0.0/12"), block("192.0.0.0/24"), block("192.0.2.0/24"),
            block("192.31.196.0/24"), block("192.52.193.0/24"), block("192.88.99.0/24"), block("192.168.0.0/16"),
            block("192.175.48.0/24"), block("198.18.0.0/15"), block("198.51.100.0/24"), block("203.0.113.0/24"),
            block("224.0.0.0/4"), block("240.0.0.0/4"), block("255.255.255.255/32"),
            // IPv6
            block("::/96"), // unspecified, loopback and the IPv4-compatible addresses
            block("::ffff:0:0/96"), block("64:ff9b::/96"), block("64:ff9b:1::/48"), block("100::/64"),
            block("2001::/23"), block("2001:db8::/32"), block("2002::/16"), block("3fff::/20"), block("5f00::/16"),
            block("fc00::/7"), block("fe80::/10"), block("fec0::/10"), block("ff00::/8"));

    private AddressPolicy() {
    }

    /** True if the address is in none of the special-purpose blocks. */
    static boolean isPublic(InetAddress a) {
        byte[] raw = a.getAddress();
        if (a instanceof Inet6Address && isMapped(raw)) {
            return false; // an IPv4-mapped address the platform kept as v6
        }
        for (Block b : DENIED) {
            if (b.contains(raw)) {
                return false;
            }
        }
        return a instanceof Inet4Address || a instanceof Inet6Address;
    }

    private static boolean isMapped(byte[] raw) {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return (raw[10] & 0xff) == 0xff && (raw[11] & 0xff) == 0xff;
    }

    private static Block block(String cidr) {
        String[] parts = cidr.split("/");
        try {
            byte[] prefix = InetAddress.getByName(parts[0]).getAddress();
            if (parts[0].contains(":") && prefix.length == 4) {
                // the platform turned ::ffff:0:0 into an IPv4 address; keep the v6 form
                byte[] v6 = new byte[16];
                v6[10] = (byte) 0xff;
                v6[11] = (byte) 0xff;
                System.arraycopy(prefix, 0, v6, 12, 4);
                prefix = v6;
            }
            return new Block(prefix, Integer.parseInt(parts[1]));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("not an address: " + cidr, e);
        }
    }
}
