from regrapht.cli import main

main()
