# gpu-box-setup.sh - sourced by the GPU measurement scripts on a bare GPU box (no network, no
# clang): unpacks the course's Debian libraries (.gpu-debs, .gpu-extra) into /opt/deps and Debian
# 12's clang-14 (.gpu-clang) into / as `apt-get install clang-14` would, builds stand-ins for the
# libraries libLLVM-14 links that the box lacks, and exports PATH, CMAKE_PREFIX_PATH,
# LD_LIBRARY_PATH, LIBRARY_PATH and CPATH for the build. Sets REGIONS to .gpu-regions'
# banksim_regions.so where it was carried (make regions-plugin). Needs SRC (the course's root).
DEBS=$(readlink -f "$SRC/.gpu-debs") EXTRA=$(readlink -f "$SRC/.gpu-extra")
CLANG=$(readlink -f "$SRC/.gpu-clang")
REGIONS=$(readlink -f "$SRC/.gpu-regions/banksim_regions.so" 2>/dev/null)
mkdir -p /opt/deps /opt/stubs
for f in "$DEBS"/*.deb "$EXTRA"/*.deb; do dpkg -x "$f" /opt/deps; done
for f in "$CLANG"/*.deb; do dpkg -x "$f" /; done
ln -sf clang++-14 /usr/bin/clang++
ln -sf clang-14 /usr/bin/clang
# Libraries libLLVM-14 links that this box lacks: libz3 (the static analyzer's Z3 backend),
# libxml2 (Windows manifests), libedit (line editing): never called when compiling CUDA for the
# CPU, but libLLVM binds every symbol at load. Stand-ins with their sonames, the symbols libLLVM
# takes from them and libxml2's symbol versions let the loader start clang.
LLVM=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
for lib in $(ldd $LLVM | awk '/not found/{print $1}'); do
  case $lib in
    libxml2.so.2)
      nm -D $LLVM | awk '$1=="U" && $2 ~ /@LIBXML2_/ {split($2,a,"@"); print a[1], a[2]}' |
        sort -u >/tmp/xml.syms
      awk '{ if ($1=="xmlFree") print "void *xmlFree = 0;"; else print "void " $1 "(void) {}" }' \
        /tmp/xml.syms >/tmp/stub.c
      : >/tmp/stub.map; prev=""
      for v in $(awk '{print $2}' /tmp/xml.syms | sort -u); do
        echo "$v { global:$(awk -v v=$v '$2==v {printf " %s;", $1}' /tmp/xml.syms) } $prev;" >>/tmp/stub.map
        prev=$v
      done
      gcc -shared -fPIC -o /opt/stubs/$lib -Wl,-soname,$lib -Wl,--version-script=/tmp/stub.map \
        /tmp/stub.c ;;
    libz3.so.4 | libedit.so.2)
      re='^Z3_'; [ $lib = libedit.so.2 ] && re='^(el_|history)'
      nm -D $LLVM | awk -v re="$re" '$1=="U" && $2 !~ /@/ && $2 ~ re {print "void " $2 "(void) {}"}' >/tmp/stub.c
      gcc -shared -fPIC -o /opt/stubs/$lib -Wl,-soname,$lib /tmp/stub.c ;;
    *) echo "missing for clang, no stand-in: $lib" ;;
  esac
  [ -f /opt/stubs/$lib ] && echo "stand-in: $lib"
done
chmod 755 /opt /opt/deps /opt/stubs
export PATH=/opt/deps/usr/bin:$PATH CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:/opt/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include
