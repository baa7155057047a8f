# gpu-box-setup.sh - sourced by the GPU measurement scripts on a bare GPU box (no network, no
# clang): unpacks the course's Debian libraries (.gpu-debs, .gpu-extra) into /opt/deps and Debian
# 12's clang-14 and llvm-symbolizer-14 (.gpu-clang) into / as `apt-get install clang-14 llvm-14`
# would, builds stand-ins for the libraries libLLVM-14 and llvm-symbolizer link that the box
# lacks, and exports PATH, CMAKE_PREFIX_PATH, LD_LIBRARY_PATH, LIBRARY_PATH and CPATH for the
# build. Sets REGIONS to .gpu-regions' banksim_regions.so where it was carried (make
# regions-plugin). Needs SRC (the course's root). gpu-carry.sh fills the carried folders.
DEBS=$(readlink -f "$SRC/.gpu-debs") EXTRA=$(readlink -f "$SRC/.gpu-extra")
CLANG=$(readlink -f "$SRC/.gpu-clang")
REGIONS=$(readlink -f "$SRC/.gpu-regions/banksim_regions.so" 2>/dev/null)
mkdir -p /opt/deps /opt/stubs
for f in "$DEBS"/*.deb "$EXTRA"/*.deb; do dpkg -x "$f" /opt/deps; done
for f in "$CLANG"/*.deb; do dpkg -x "$f" /; done
# banksim names every access's line with llvm-symbolizer; the grader stops without it.
tar -C / -xf "$CLANG/llvm-symbolizer-14.tar" || echo "no llvm-symbolizer-14 carried (gpu-carry.sh)"
ln -sf clang++-14 /usr/bin/clang++
ln -sf clang-14 /usr/bin/clang
# Libraries libLLVM-14 and llvm-symbolizer link that this box lacks: libz3 (the static analyzer's
# Z3 backend), libxml2 (Windows manifests), libedit (line editing), libcurl-nss (debuginfod):
# never called when compiling CUDA for the CPU or naming a line, but the loader binds every
# symbol at start. Stand-ins with their sonames, the symbols the binaries take from them (each
# returning 0) and their symbol versions let the loader start clang and llvm-symbolizer.
stub() {  # stub LIB REGEX BINARY...: LIB's stand-in, the imports (name@version) matching REGEX
  local lib=$1 re=$2; shift 2
  for b in "$@"; do nm -D "$b"; done | awk -v re="$re" '$1=="U" && $2 ~ re {split($2,a,"@"); print a[1], a[2]}' |
    sort -u >/tmp/stub.syms
  awk '{ if ($1=="xmlFree") print "void *xmlFree = 0;"; else print "long " $1 "(void) { return 0; }" }' \
    /tmp/stub.syms >/tmp/stub.c
  : >/tmp/stub.map; local prev="" v
  for v in $(awk '$2!="" {print $2}' /tmp/stub.syms | sort -u); do
    echo "$v { global:$(awk -v v=$v '$2==v {printf " %s;", $1}' /tmp/stub.syms) } $prev;" >>/tmp/stub.map
    prev=$v
  done
  gcc -shared -fPIC -o /opt/stubs/$lib -Wl,-soname,$lib \
    $([ -s /tmp/stub.map ] && echo -Wl,--version-script=/tmp/stub.map) /tmp/stub.c
}
LLVM=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
SYMBOLIZER=/usr/lib/llvm-14/bin/llvm-symbolizer
BINS="$LLVM $(ls $SYMBOLIZER 2>/dev/null)"
# shellcheck disable=SC2086  # BINS is a list of files
for lib in $(ldd $BINS | awk '/not found/{print $1}' | sort -u); do
  case $lib in
    libxml2.so.2) stub $lib '@LIBXML2_' $BINS ;;
    libz3.so.4) stub $lib '^Z3_' $BINS ;;
    libedit.so.2) stub $lib '^(el_|history)' $BINS ;;
    libcurl-nss.so.4) stub $lib '^curl_' $BINS ;;
    *) echo "missing for clang or llvm-symbolizer, no stand-in: $lib" ;;
  esac
  [ -f /opt/stubs/$lib ] && echo "stand-in: $lib"
done
chmod 755 /opt /opt/deps /opt/stubs
export PATH=/opt/deps/usr/bin:$PATH CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu:/opt/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include
