Option Explicit

Sub Main()
    Print "old"
End Sub
