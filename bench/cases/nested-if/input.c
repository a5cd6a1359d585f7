/* The specification's demo program, as real C: crash() buried in nested ifs. */
int c1, c2, c3;

int main() {
   if (c1) {
      if (c2) {
         if (c3) { crash(); noise(); }
         noise();
      }
      noise();
   }
   noise(); noise();
}
