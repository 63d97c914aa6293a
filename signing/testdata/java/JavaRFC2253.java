// JavaRFC2253 prints what Java renders with X500Principal.getName("RFC2253"),
// the form production TPP agents for the platform put in the keyId. It
// recorded ../issuers-java.tsv and ../names-java.tsv once; the Go tests
// compare against those files and never run Java. To record again (JDK 11 or
// later, single-file source launch):
//
//   cd signing/testdata
//   java java/JavaRFC2253.java certs issuers/*.pem > issuers-java.tsv
//   go run java/gen.go | java java/JavaRFC2253.java names > names-java.tsv
//
// certs: one line per certificate: file name, the serial as
// BigInteger.toString(16).toUpperCase(), and the issuer's RFC 2253 name.
// names: reads "label<TAB>hex of a DER Name" lines and adds the name's RFC
// 2253 rendering (new X500Principal(der).getName("RFC2253")), or a line
// starting with "ERROR" when Java refuses the name.
//
// Renderings are written as Go double-quoted strings (strconv.Unquote reads
// them): backslash and double quote are escaped with a backslash, control
// characters (below U+0020, and U+007F) as \xHH, everything else as UTF-8.
// Java's own output can hold raw tabs and carriage returns, which would
// break the TSV otherwise.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import javax.security.auth.x500.X500Principal;

public class JavaRFC2253 {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        out.println("# Recorded with " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " by java/JavaRFC2253.java (" + args[0] + "); the last column is a Go quoted string.");
        if (args[0].equals("certs")) {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (int i = 1; i < args.length; i++) {
                try (InputStream in = new FileInputStream(args[i])) {
                    X509Certificate c = (X509Certificate) cf.generateCertificate(in);
                    out.println(Path.of(args[i]).getFileName() + "\t" + c.getSerialNumber().toString(16).toUpperCase()
                            + "\t" + quote(c.getIssuerX500Principal().getName("RFC2253")));
                }
            }
            return;
        }
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = r.readLine()) != null; ) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] cols = line.split("\t");
            String rendered;
            try {
                rendered = quote(new X500Principal(HexFormat.of().parseHex(cols[1])).getName("RFC2253"));
            } catch (Exception e) {
                rendered = "ERROR " + e;
            }
            out.println(cols[0] + "\t" + cols[1] + "\t" + rendered);
        }
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        s.codePoints().forEach(cp -> {
            if (cp == '\\' || cp == '"') {
                b.append('\\').appendCodePoint(cp);
            } else if (cp < 0x20 || cp == 0x7f) {
                b.append(String.format("\\x%02x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.append('"').toString();
    }
}
