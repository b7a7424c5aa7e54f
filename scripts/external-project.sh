#!/usr/bin/env bash
# Installs jrxe into the local Maven repository, then builds and runs, offline, a new Maven project
# in a temporary directory that has nothing but the dependency dev.jrxe:jrxe: its main class opens
# two devices (127.0.0.2, 127.0.0.3), connects RC QPs and sends one message, on the class path and
# again as a module (requires dev.jrxe). Checks the installed jar, sources jar, javadoc jar and that
# the tools' dependencies (picocli, HdrHistogram) did not come along. Exit 0: all good.
# Usage: scripts/external-project.sh [--no-install]   (--no-install: use what is installed)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$here/pom.xml" | head -1)
repo=${MAVEN_REPO:-$HOME/.m2/repository}   # the default local repository (set MAVEN_REPO for another)
if [ "${1:-}" != "--no-install" ]; then
  (cd "$here" && mvn -B -q install -DskipTests)
fi
art="$repo/dev/jrxe/jrxe/$version"
for f in "jrxe-$version.jar" "jrxe-$version-sources.jar" "jrxe-$version-javadoc.jar" "jrxe-$version.pom"; do
  [ -s "$art/$f" ] || { echo "external-project: missing $art/$f" >&2; exit 1; }
done
listing=$(unzip -l "$art/jrxe-$version-javadoc.jar")   # whole, not piped into grep -q (SIGPIPE under pipefail)
grep -q "dev/jrxe/verbs/QueuePair.html" <<<"$listing" \
  || { echo "external-project: the javadoc jar has no QueuePair page" >&2; exit 1; }
if grep -q "dev/jrxe/transport/" <<<"$listing"; then
  echo "external-project: the javadoc jar documents internal packages" >&2; exit 1
fi
listing=$(unzip -l "$art/jrxe-$version-sources.jar")
grep -q "dev/jrxe/verbs/QueuePair.java" <<<"$listing" \
  || { echo "external-project: the sources jar has no QueuePair.java" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/main/java/app"
cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>app</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>25</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.jrxe</groupId>
      <artifactId>jrxe</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <!-- the plugin versions jrxe's own build uses, so an offline build finds them -->
    <pluginManagement>
      <plugins>
        <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
        <plugin><artifactId>maven-jar-plugin</artifactId><version>3.5.1</version></plugin>
        <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
        <plugin><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
      </plugins>
    </pluginManagement>
    <plugins>
      <!-- a JDK 25 to compile with, where Maven itself runs on an older one -->
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-toolchains-plugin</artifactId>
        <version>3.2.0</version>
        <executions>
          <execution>
            <goals><goal>select-jdk-toolchain</goal></goals>
            <configuration><version>[25,)</version></configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
POM
cat > "$work/src/main/java/app/Main.java" <<'JAVA'
package app;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.IdleStrategy;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

public final class Main {
    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        try (Device a = Device.open(DeviceConfig.of("app-a", "127.0.0.2").udpPort(port));
             Device b = Device.open(DeviceConfig.of("app-b", "127.0.0.3").udpPort(port));
             Arena arena = Arena.ofShared()) {
            MemorySegment bufA = arena.allocate(4096, 4096);
            MemorySegment bufB = arena.allocate(4096, 4096);
            MemoryRegion mrA = a.allocPd().registerMemory(bufA, Access.LOCAL_WRITE);
            MemoryRegion mrB = b.allocPd().registerMemory(bufB, Access.LOCAL_WRITE);
            CompletionQueue cqA = a.createCq(16);
            CompletionQueue cqB = b.createCq(16);
            QueuePair qa = mrA.pd().createQp(new QpInitAttr(QpType.RC, cqA, cqA, new QpCap(4, 4, 1, 1, 0)));
            QueuePair qb = mrB.pd().createQp(new QpInitAttr(QpType.RC, cqB, cqB, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().pair(qa, 1, qb, 2);
            qb.postRecv(new RecvWr(1).sge(mrB, 0, 4096));
            bufA.setString(0, "hello from an external project");
            SendWr wr = new SendWr(1).sge(mrA, 0, 64);
            wr.sendFlags = SendFlags.SIGNALED;
            qa.postSend(wr);
            WorkCompletion[] wc = {new WorkCompletion()};
            if (cqB.poll(wc, 1, IdleStrategy.backoff(), 10_000_000_000L) != 1 || wc[0].opcode != WcOpcode.RECV || !wc[0].ok()) {
                throw new IllegalStateException("no message: " + wc[0]);
            }
            System.out.println(bufB.getString(0));
        }
    }
}
JAVA
cd "$work"
mvn -B -q -o package
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=cp.txt >/dev/null
cp=$(cat cp.txt)
case "$cp" in
  *picocli*|*HdrHistogram*) echo "external-project: the tools' dependencies came along: $cp" >&2; exit 1 ;;
esac
java=$(ls -d /usr/lib/jvm/*25*/bin/java 2>/dev/null | head -1)
java=${JAVA25:-${java:-java}}
port=$((40000 + $$ % 20000))
out=$("$java" --enable-native-access=ALL-UNNAMED -cp "target/classes:$cp" app.Main "$port")
[ "$out" = "hello from an external project" ] || { echo "external-project: class path run printed: $out" >&2; exit 1; }
echo "external-project: class path: $out"
# the same program as a module that requires dev.jrxe, on the module path
mkdir -p mod/app && cp src/main/java/app/Main.java mod/app/
echo 'module app { requires dev.jrxe; }' > mod/module-info.java
"$(dirname "$java")/javac" -d modout -p "$cp" mod/module-info.java mod/app/Main.java
out=$("$java" --enable-native-access=dev.jrxe -p "modout:$cp" -m app/app.Main "$((port + 1))")
[ "$out" = "hello from an external project" ] || { echo "external-project: module path run printed: $out" >&2; exit 1; }
echo "external-project: module path: $out"
echo "external-project: jar, sources and javadoc installed; an offline project builds and runs on both paths"
