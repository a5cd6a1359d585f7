g++ -std=c++20 -O2 -Wall -g -x c++ -fsyntax-only @@
