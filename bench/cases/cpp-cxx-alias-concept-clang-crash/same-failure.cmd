clang++ -std=c++20 -O2 -Wall -g -fsyntax-only -fno-crash-diagnostics -w @@
